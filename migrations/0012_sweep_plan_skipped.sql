-- TurnLab schema, version 12: the combinations of a sweep's grid that no run's config accepts
-- (GRPO with bi-level GAE in a grid of both keys), left out as the sweep starts. Without them a
-- 2 x 2 grid that trained 3 settings would read "3 of 4 settings started" for ever.
-- JSON: each left-out combination as its values in the order of the axes, e.g. [["grpo", "true"]].
ALTER TABLE sweep_plans ADD COLUMN skipped TEXT NOT NULL DEFAULT '[]';
