// trainer-core's public surface for work with tensors: choosing a backend, training,
// evaluating, checkpoints and models. Importing it loads TensorFlow.js, so commands that may not
// need it import it lazily (`await import('../../trainer-core/compute')`); everything else is in
// ./index.ts.

export { selectBackend, releaseBackend, probeBackends } from './backend';
export { train } from './train/trainer';
export { evaluateCheckpoint, evaluatePretrainedModel } from './train/evaluate';
export { checkpointVocabSize, verifyCheckpoint, readCheckpointConfig, readCheckpointSourceConfig } from './train/checkpoint';
export { verifyRunCheckpoint } from './train/checkpoint-check';
export { refuseWarmStartPolicy } from './train/warm-start-checkpoint';
export { checkOwnModelFits, expectedModels } from './train/models';
export { wasmMemoryWarning } from './train/wasm-memory';
export { settingNotes } from './train/setting-notes';
export { scheduleTotalNote } from './train/run-schedule';
export { checkWarmStartFits } from './train/warm-start-fit';
export { checkFirstPromptsFit, promptTokenizers } from './train/first-prompt-fit';
export { openCheckpointPolicy } from './train/pretrained-models';
export { isHfModelFolder, openHfModelFolder, loadHfDecoder } from './model/hf/load';
export { looksLikeHubId } from './model/hf/hub-cache';
export { generate } from './model/hf/generate';
export { exportHfFolder } from './model/hf/export';
