-- TurnLab schema, version 5: the size of a run's policy as its trainer built it (every parameter,
-- base and adapters), so the workbench shows it without loading the model. Null for runs stored
-- before this version and for runs whose trainer has not started yet.
ALTER TABLE runs ADD COLUMN parameter_count INTEGER;
