-- TurnLab schema, version 2: which process trains a run, so that on start-up the app can tell a
-- run left `running` by a dead process (then `interrupted`) from one that the CLI is training in
-- another process right now. The host guards against checking a pid of another machine that
-- shares the data folder.
ALTER TABLE runs ADD COLUMN trainer_pid INTEGER;
ALTER TABLE runs ADD COLUMN trainer_host TEXT;
