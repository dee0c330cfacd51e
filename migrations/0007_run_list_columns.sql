-- TurnLab schema, version 7: the Runs view at 10,000 runs. Its table sorts and filters in SQL,
-- a page at a time, so what each row shows must be a column of runs rather than an aggregate
-- over the run's metrics computed for every run on every request (344 ms at 1,000 runs).
--
-- last_iteration: the highest iteration any metric of the run was logged at (null before the
-- first); best_val_success: the highest value of any `val/<tag>/success` metric (null when none).
-- Triggers on metrics keep both current whoever writes (a trainer, a bundle import copying rows,
-- a resume truncating, a delete), so no writer can forget them. A later migration that rebuilds
-- runs must drop these triggers first and create them again after (SQLite refuses to rename a
-- table into place while a trigger names a table that is gone).
ALTER TABLE runs ADD COLUMN last_iteration INTEGER;
ALTER TABLE runs ADD COLUMN best_val_success REAL;

UPDATE runs SET
  last_iteration = (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id),
  best_val_success = (SELECT MAX(m.value) FROM metrics m
    WHERE m.run_id = runs.id AND m.name >= 'val/' AND m.name < 'val0' AND m.name GLOB 'val/*/success');

-- A new row raises either column at most: no rescan. The WHEN clause keeps the run's row (which
-- holds its config) from being rewritten for the ~60 metrics of an iteration after the first.
CREATE TRIGGER metrics_raise_run_columns AFTER INSERT ON metrics
  WHEN NEW.iteration > coalesce((SELECT r.last_iteration FROM runs r WHERE r.id = NEW.run_id), -9223372036854775808)
    OR (NEW.value IS NOT NULL AND NEW.name GLOB 'val/*/success'
      AND NEW.value > coalesce((SELECT r.best_val_success FROM runs r WHERE r.id = NEW.run_id), -1e308))
BEGIN
  UPDATE runs SET
    last_iteration = max(coalesce(last_iteration, NEW.iteration), NEW.iteration),
    best_val_success = CASE
      WHEN NEW.value IS NOT NULL AND NEW.name GLOB 'val/*/success'
        THEN max(coalesce(best_val_success, NEW.value), NEW.value)
      ELSE best_val_success END
  WHERE id = NEW.run_id;
END;

-- A value replaced (a trainer repeating an iteration after a crash) may lower the best: rescan
-- the run's success rows (a few hundred at most).
CREATE TRIGGER metrics_rescan_run_columns_on_update AFTER UPDATE ON metrics
  WHEN NEW.name GLOB 'val/*/success' OR OLD.name GLOB 'val/*/success' OR NEW.iteration <> OLD.iteration OR NEW.run_id <> OLD.run_id
BEGIN
  UPDATE runs SET
    last_iteration = (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id),
    best_val_success = (SELECT MAX(m.value) FROM metrics m
      WHERE m.run_id = runs.id AND m.name >= 'val/' AND m.name < 'val0' AND m.name GLOB 'val/*/success')
  WHERE id IN (NEW.run_id, OLD.run_id);
END;

-- Rows deleted (a resume truncating after its checkpoint, a run deleted chunk by chunk): only a
-- row at the run's last iteration, or a success row, can change either column.
CREATE TRIGGER metrics_rescan_run_columns_on_delete AFTER DELETE ON metrics
  WHEN OLD.iteration >= (SELECT r.last_iteration FROM runs r WHERE r.id = OLD.run_id)
    OR OLD.name GLOB 'val/*/success'
BEGIN
  UPDATE runs SET
    last_iteration = (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id),
    best_val_success = (SELECT MAX(m.value) FROM metrics m
      WHERE m.run_id = runs.id AND m.name >= 'val/' AND m.name < 'val0' AND m.name GLOB 'val/*/success')
  WHERE id = OLD.run_id;
END;

-- The Runs view's sort and filter columns (id is the rowid). Sorting by progress divides by the
-- config's planned total, computed per row: 10,000 rows sort in a few milliseconds.
CREATE INDEX runs_name ON runs (name);
CREATE INDEX runs_status ON runs (status);
CREATE INDEX runs_algorithm ON runs (algorithm);
CREATE INDEX runs_created_at ON runs (created_at);
CREATE INDEX runs_last_iteration ON runs (last_iteration);
CREATE INDEX runs_best_val_success ON runs (best_val_success);
