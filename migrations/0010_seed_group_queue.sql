-- TurnLab schema, version 10: the seeds of a group waiting for a slot, one row each, written by the
-- process that will start them (the app, `serve`, `turnlab train --seeds`). Kept in the database
-- rather than in that process's memory so that every process shows a group's whole plan, and
-- so that any of them can stop the group: the owner starts a seed only by taking its row, and
-- stopping a group marks its rows, which the owner reads before each start and after each run
-- it created. A row whose owner died is ignored and removed by whoever reads it next.
CREATE TABLE seed_group_queue (
  group_name        TEXT    NOT NULL,
  seed              INTEGER NOT NULL,
  run_name          TEXT    NOT NULL,
  owner_pid         INTEGER NOT NULL,
  owner_host        TEXT    NOT NULL,
  owner_started_at  INTEGER NOT NULL,
  queued_at         INTEGER NOT NULL,
  -- Set when the owner started the seed's trainer; the row stays until the group ends.
  started_at        INTEGER,
  -- Set when someone stopped the group: its seeds not yet started never start.
  stopped_at        INTEGER,
  PRIMARY KEY (group_name, seed)
);
