-- TurnLab schema, version 9: the lines a run's trainer logs (the backend it chose and why, warnings
-- such as a collapse or episodes cut for want of context, a database that was busy), kept with the
-- run so the workbench shows them for runs it started itself, as W&B's Logs tab does; a terminal
-- shows them as they come. Runs stored before have none.
CREATE TABLE run_logs (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  at      INTEGER NOT NULL,
  line    TEXT NOT NULL
);
CREATE INDEX run_logs_run ON run_logs (run_id, id);
