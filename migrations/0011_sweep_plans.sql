-- TurnLab schema, version 11: what each sweep was asked to train (its grid and seeds), written
-- when it starts. The runs of a sweep carry its tag, but a sweep's groups appear one by one as
-- they start (locally one after the other, on Slurm when a task is imported), so without its
-- plan a 4 x 2 sweep reads "1 setting x 2 seeds" at first and a stopped one forgets the settings
-- it never started.
CREATE TABLE sweep_plans (
  name        TEXT    PRIMARY KEY,
  -- JSON: [{"key": "algorithm.gamma", "values": ["0.9", "1.0"]}, ...], as --grid was read.
  axes        TEXT    NOT NULL,
  -- JSON: the seeds every setting trains, e.g. [0, 1, 2].
  seeds       TEXT    NOT NULL,
  executor    TEXT    NOT NULL CHECK (executor IN ('local', 'slurm')),
  created_at  INTEGER NOT NULL
);
