-- TurnLab schema, version 1.
-- Conventions: times are epoch milliseconds (INTEGER; metric wall times REAL), JSON columns are
-- TEXT holding JSON, booleans are 0/1. A metric value of NULL records a NaN.

CREATE TABLE runs (
  id                   INTEGER PRIMARY KEY AUTOINCREMENT,
  name                 TEXT    NOT NULL,
  status               TEXT    NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'running', 'stopping', 'stopped', 'completed', 'failed', 'interrupted')),
  created_at           INTEGER NOT NULL,
  started_at           INTEGER,
  finished_at          INTEGER,
  config               TEXT    NOT NULL CHECK (json_valid(config)),
  config_hash          TEXT    NOT NULL,
  seed                 INTEGER NOT NULL,
  env_tags             TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(env_tags)),
  algorithm            TEXT    NOT NULL,
  backend              TEXT,
  device               TEXT,
  -- A resumed or forked run points at the run and checkpoint it continues from; the
  -- iteration is kept separately so the lineage survives the checkpoint being deleted.
  parent_run_id        INTEGER REFERENCES runs (id) ON DELETE SET NULL,
  parent_checkpoint_id INTEGER REFERENCES checkpoints (id) ON DELETE SET NULL,
  parent_iteration     INTEGER,
  error                TEXT,
  tags                 TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
  notes                TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX runs_parent_run ON runs (parent_run_id);
CREATE INDEX runs_parent_checkpoint ON runs (parent_checkpoint_id);

-- One value per (run, name, iteration); the primary key doubles as the index for a run's
-- series by name.
CREATE TABLE metrics (
  run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name      TEXT    NOT NULL,
  iteration INTEGER NOT NULL,
  value     REAL,
  wall_time REAL    NOT NULL,
  PRIMARY KEY (run_id, name, iteration)
) WITHOUT ROWID;
-- The last iteration of a run, and deleting a run's rows after iteration k on resume.
CREATE INDEX metrics_run_iteration ON metrics (run_id, iteration);

CREATE TABLE episodes (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration    INTEGER NOT NULL,
  split        TEXT    NOT NULL CHECK (split IN ('train', 'val')),
  env_tag      TEXT    NOT NULL,
  group_id     INTEGER NOT NULL,
  env_index    INTEGER NOT NULL,
  seed         INTEGER NOT NULL,
  total_reward REAL    NOT NULL,
  success      INTEGER NOT NULL CHECK (success IN (0, 1)),
  num_turns    INTEGER NOT NULL,
  num_actions  INTEGER NOT NULL,
  truncated    INTEGER NOT NULL CHECK (truncated IN (0, 1)),
  filtered_out INTEGER NOT NULL DEFAULT 0 CHECK (filtered_out IN (0, 1)),
  -- Also the index for a run's episodes by iteration.
  UNIQUE (run_id, iteration, split, env_tag, env_index)
);
-- (run_id, rowid): paging through a run's episodes in insertion order for export.
CREATE INDEX episodes_run ON episodes (run_id);

CREATE TABLE turns (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  episode_id        INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
  turn_index        INTEGER NOT NULL,
  observation       TEXT    NOT NULL,
  state             TEXT    CHECK (state IS NULL OR json_valid(state)),
  response          TEXT    NOT NULL,
  actions           TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(actions)),
  num_valid_actions INTEGER NOT NULL,
  reward            REAL    NOT NULL,
  done              INTEGER NOT NULL CHECK (done IN (0, 1)),
  info              TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(info)),
  num_tokens        INTEGER NOT NULL,
  logprob_sum       REAL,
  advantage_mean    REAL,
  -- Also the index for an episode's turns.
  UNIQUE (episode_id, turn_index)
);

CREATE TABLE checkpoints (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration  INTEGER NOT NULL,
  path       TEXT    NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256     TEXT    NOT NULL,
  created_at INTEGER NOT NULL,
  metrics    TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metrics)),
  UNIQUE (run_id, iteration)
);
