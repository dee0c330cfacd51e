// The names the workbench shares with the trainer, re-exported from the modules that own them,
// so a form never keeps a list of its own that can drift. Imports nothing that needs Node, an
// npm package or tensors (tests/architecture checks), so the renderer can bundle it; it reaches
// the renderer through preload/contract.ts.
export { BUILT_IN_ESTIMATOR_NAMES } from './algo/estimators';
export { BACKENDS } from './backend-names';
export { COLLAPSE_METRIC, WELL_FORMED_METRIC } from './train/collapse';

// Shapes the contract derives its DTOs from (types only: nothing of them is loaded).
export type { EpisodeReport, TurnReport } from './train/sink';
export type { StoredRunConfig } from './config/schema';
