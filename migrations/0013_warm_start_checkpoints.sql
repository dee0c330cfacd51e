-- TurnLab schema, version 13: warm-start checkpoints (warm_start.save_freq). A supervised warm start
-- of hours saves its progress every save_freq steps, so a stopped or killed run goes on from there.
-- Such a checkpoint is recorded at iteration 0 with the warm start's steps done in warm_start_step;
-- null for every other checkpoint (a finished one: an iteration's policy, the iter-0 of
-- warm_start.save_checkpoint). A run keeps one, and none once it has a finished checkpoint: the
-- store deletes it as it records the next (main/store/repositories/checkpoints.ts).
ALTER TABLE checkpoints ADD COLUMN warm_start_step INTEGER CHECK (warm_start_step IS NULL OR warm_start_step > 0);
