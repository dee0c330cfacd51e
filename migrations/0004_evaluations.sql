-- TurnLab schema, version 4: evaluations of a checkpoint (`turnlab eval`, the Checkpoints view's
-- Evaluate) are kept, with their episodes and turns, so they survive a reload and can be replayed.
--
-- An evaluation's episodes go in the episodes table, marked by evaluation_id, rather than in
-- tables of their own: turns, the Replay view, re-simulation and the group view then read an
-- evaluation's episode by its id exactly as a training episode. A run's own episodes are those
-- with no evaluation_id.
CREATE TABLE evaluations (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  -- Deleting or pruning the checkpoint keeps the evaluation; the iteration still says which it was.
  checkpoint_id INTEGER REFERENCES checkpoints (id) ON DELETE SET NULL,
  iteration     INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  -- The config the episodes were played with (the run's, with the evaluation's overrides), so a
  -- re-simulation rebuilds the environments the evaluation used.
  config        TEXT    NOT NULL CHECK (json_valid(config)),
  overrides     TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(overrides)),
  num_episodes  INTEGER NOT NULL,
  start_seed    INTEGER,
  backend       TEXT,
  device        TEXT,
  metrics       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(metrics))
);
CREATE INDEX evaluations_run ON evaluations (run_id, iteration);
CREATE INDEX evaluations_checkpoint ON evaluations (checkpoint_id);

-- The table-level UNIQUE of 0001 cannot hold an evaluation's episodes (they sit at the
-- checkpoint's iteration, beside the run's own validation episodes), so episodes is rebuilt the
-- SQLite way with two partial unique indexes in its place. Foreign keys are off while migrations
-- run, so dropping the old table leaves the turns in place.
CREATE TABLE episodes_rebuilt (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  iteration     INTEGER NOT NULL,
  split         TEXT    NOT NULL CHECK (split IN ('train', 'val')),
  env_tag       TEXT    NOT NULL,
  group_id      INTEGER NOT NULL,
  env_index     INTEGER NOT NULL,
  seed          INTEGER NOT NULL,
  total_reward  REAL    NOT NULL,
  success       INTEGER NOT NULL CHECK (success IN (0, 1)),
  num_turns     INTEGER NOT NULL,
  num_actions   INTEGER NOT NULL,
  truncated     INTEGER NOT NULL CHECK (truncated IN (0, 1)),
  filtered_out  INTEGER NOT NULL DEFAULT 0 CHECK (filtered_out IN (0, 1)),
  evaluation_id INTEGER REFERENCES evaluations (id) ON DELETE CASCADE
);
INSERT INTO episodes_rebuilt (id, run_id, iteration, split, env_tag, group_id, env_index, seed, total_reward, success,
  num_turns, num_actions, truncated, filtered_out)
SELECT id, run_id, iteration, split, env_tag, group_id, env_index, seed, total_reward, success,
  num_turns, num_actions, truncated, filtered_out
FROM episodes;
-- Keep the id counter where it was, so ids of deleted episodes are never handed out again.
DELETE FROM sqlite_sequence WHERE name = 'episodes_rebuilt';
UPDATE sqlite_sequence SET name = 'episodes_rebuilt' WHERE name = 'episodes';
DROP TABLE episodes;
ALTER TABLE episodes_rebuilt RENAME TO episodes;
-- A run's own episodes: unique as before, and the index for a run's episodes by iteration.
CREATE UNIQUE INDEX episodes_run_iteration ON episodes (run_id, iteration, split, env_tag, env_index)
  WHERE evaluation_id IS NULL;
CREATE UNIQUE INDEX episodes_evaluation ON episodes (evaluation_id, env_tag, env_index)
  WHERE evaluation_id IS NOT NULL;
-- (run_id, rowid): paging through a run's episodes in insertion order for export and deletion.
CREATE INDEX episodes_run ON episodes (run_id);
