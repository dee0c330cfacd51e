-- TurnLab schema, version 8: how far a run's supervised warm start has got, so the workbench can
-- show a run that is warming up (the Sokoban and Countdown warm starts take 30-100 minutes on two
-- cores) instead of a status alone. JSON {step, steps, loss, startedAt, updatedAt}, written by the
-- trainer every hundredth of the warm start; null for runs without one and runs stored before.
ALTER TABLE runs ADD COLUMN warm_start_progress TEXT CHECK (warm_start_progress IS NULL OR json_valid(warm_start_progress));
