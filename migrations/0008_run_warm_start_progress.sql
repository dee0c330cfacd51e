-- TurnLab schema, version 8: how far a run's training before RL has got, so the workbench can show
-- a run that is warming up (the Sokoban and Countdown warm starts and expert iteration take 30-100
-- minutes on two cores) instead of a status alone. JSON {phase, step, steps, loss, startedAt,
-- updatedAt}, written by the trainer every hundredth of the warm start's steps and after each
-- round of expert iteration; null for runs without either and runs stored before.
ALTER TABLE runs ADD COLUMN warm_start_progress TEXT CHECK (warm_start_progress IS NULL OR json_valid(warm_start_progress));
