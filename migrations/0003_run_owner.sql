-- TurnLab schema, version 3: the owner of a live run. Besides the pid and host of 0002, the
-- owning process records when it took the run and beats a heartbeat every few seconds and at
-- each iteration, so that another process can tell a live owner (resume, fork, truncate and
-- delete are refused) from a gone one (the run reads `interrupted`): by the pid on the same host,
-- by the heartbeat's age for a run trained on another host that shares the data folder.
ALTER TABLE runs ADD COLUMN trainer_started_at INTEGER;
ALTER TABLE runs ADD COLUMN trainer_heartbeat_at INTEGER;
