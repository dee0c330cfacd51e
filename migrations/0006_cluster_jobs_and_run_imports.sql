-- TurnLab schema, version 6: runs trained elsewhere and brought home, and the cluster jobs that
-- train them.
--
-- run_imports: where an imported run came from (a bundle's id and the run's id in that bundle's
-- own SQLite file), so that importing the same bundle again adds nothing and a bundle that grew
-- since (a resumed task) replaces the run's rows instead of adding a second run. The fingerprint
-- sums up the source run's rows as they were when imported.
CREATE TABLE run_imports (
  run_id       INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  source       TEXT    NOT NULL UNIQUE,
  bundle_path  TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  imported_at  INTEGER NOT NULL
);

-- cluster_jobs: one row per run of a sweep sent to a cluster (one task of its sbatch --array),
-- with the scheduler's state as last polled: a finished job is forgotten by `scontrol` after
-- MinJobAge, and without slurmdbd there is no `sacct`, so the state seen last is kept here.
-- A resumed task is a new job: job_id and attempt change, the row and its bundle stay.
CREATE TABLE cluster_jobs (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  sweep          TEXT    NOT NULL,
  seed_group     TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  seed           INTEGER NOT NULL,
  executor       TEXT    NOT NULL CHECK (executor IN ('slurm')),
  -- Where sbatch and squeue run: NULL for this machine, else the `ssh` destination.
  login_host     TEXT,
  -- The run's bundle folder as this machine sees it, and as the cluster's nodes see it (the
  -- same folder of a shared filesystem, possibly mounted elsewhere).
  bundle_dir     TEXT    NOT NULL UNIQUE,
  remote_bundle_dir TEXT NOT NULL,
  -- What the task runs, kept so a resumed task runs the same way: `turnlab` arguments after
  -- --data-dir (JSON array), the command that starts turnlab on a node, the #SBATCH settings (JSON).
  train_args     TEXT    NOT NULL CHECK (json_valid(train_args)),
  turnlab        TEXT    NOT NULL,
  resources      TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(resources)),
  -- `<array job>_<task>` for a task of the sweep's array, the plain id for a resumed job.
  job_id         TEXT,
  attempt        INTEGER NOT NULL DEFAULT 1,
  state          TEXT    NOT NULL DEFAULT 'submitting'
    CHECK (state IN ('submitting', 'pending', 'running', 'completed', 'failed', 'cancelled', 'timeout', 'unknown')),
  reason         TEXT,
  last_iteration INTEGER,
  -- The local run the bundle was imported as, and which attempt that import saw end.
  run_id         INTEGER REFERENCES runs (id) ON DELETE SET NULL,
  imported_attempt INTEGER,
  submitted_at   INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);
CREATE INDEX cluster_jobs_sweep ON cluster_jobs (sweep);
