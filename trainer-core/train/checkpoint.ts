import type { KlControllerState } from '../algo/kl-controller';
import type { Adam } from '../model/adam';
import { decodeSafetensors, encodeSafetensors } from '../model/safetensors';
import { WordByteTokenizer } from '../model/tokenizer';
import type { Transformer, TransformerConfig } from '../model/transformer';
import { decodeModel, encodeModel } from '../model/weights';
import type { RngState } from '../rng';
import type { EnvStateManagerState } from '../rollout/es-manager';
import { CheckpointError, readCheckpointFiles, writeCheckpointFiles } from './checkpoint-files';
import { describeModelMismatch } from './models';

/**
 * Everything a run needs to continue exactly where it stopped: weights (policy, critic,
 * reference) and optimizer moments as safetensors, the tokenizer, the resolved config, and the
 * counters and random-generator states in state.json.
 */
export interface TrainingState {
  iteration: number;
  rng: { sampling: RngState; minibatch: RngState; validation: RngState };
  esTrain: EnvStateManagerState;
  klController: KlControllerState;
  /** Tokens generated so far, for cumulative throughput figures. */
  totalTokens: number;
}

export interface CheckpointContents {
  policy: Transformer;
  critic: Transformer | null;
  reference: Transformer | null;
  actorOptimizer: Adam;
  criticOptimizer: Adam | null;
  tokenizer: WordByteTokenizer;
  configYaml: string;
  /** The config before `${}` resolution (config.source.yaml), so overrides can re-resolve it. */
  sourceConfigYaml?: string;
  state: TrainingState;
}

export interface LoadedCheckpoint {
  policy: Transformer;
  critic: Transformer | null;
  reference: Transformer | null;
  actorOptimizer: OptimizerSnapshot;
  criticOptimizer: OptimizerSnapshot | null;
  tokenizer: WordByteTokenizer;
  configYaml: string;
  state: TrainingState;
}

export interface OptimizerSnapshot {
  tensors: ReturnType<typeof decodeSafetensors>['tensors'];
  step: number;
}

export async function saveCheckpoint(dir: string, c: CheckpointContents): Promise<{ sizeBytes: number; sha256: string }> {
  const files: Record<string, Uint8Array | string> = {
    'policy.safetensors': await encodeModel(c.policy, { 'turnlab.role': 'policy' }),
    'optimizer.actor.safetensors': await encodeOptimizer(c.actorOptimizer),
    'tokenizer.json': JSON.stringify(c.tokenizer.toJSON()),
    'config.yaml': c.configYaml,
    'state.json': JSON.stringify(c.state, null, 2),
  };
  if (c.critic) files['critic.safetensors'] = await encodeModel(c.critic, { 'turnlab.role': 'critic' });
  if (c.criticOptimizer) files['optimizer.critic.safetensors'] = await encodeOptimizer(c.criticOptimizer);
  if (c.sourceConfigYaml !== undefined) files['config.source.yaml'] = c.sourceConfigYaml;
  if (c.reference) files['reference.safetensors'] = await encodeModel(c.reference, { 'turnlab.role': 'reference' });
  const { sizeBytes, manifestSha256 } = writeCheckpointFiles(dir, files);
  return { sizeBytes, sha256: manifestSha256 };
}

/**
 * Loads and verifies a checkpoint. `expect` holds the model shapes the config asks for; a
 * checkpoint of another shape is refused with the settings that differ.
 */
export function loadCheckpoint(dir: string, expect?: { policy: TransformerConfig; critic: TransformerConfig | null }): LoadedCheckpoint {
  const files = readCheckpointFiles(dir);
  const need = (name: string) => {
    const bytes = files[name];
    if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no ${name}`);
    return bytes;
  };
  const policy = decodeModel(need('policy.safetensors'), `${dir}/policy.safetensors`);
  const critic = files['critic.safetensors'] ? decodeModel(files['critic.safetensors'], `${dir}/critic.safetensors`) : null;
  const reference = files['reference.safetensors'] ? decodeModel(files['reference.safetensors'], `${dir}/reference.safetensors`) : null;
  const models = [policy, critic, reference].filter((m): m is Transformer => m !== null);
  try {
    if (expect) {
      const mismatch = describeModelMismatch(expect.policy, policy.config);
      if (mismatch) throw new CheckpointError(`checkpoint ${dir} does not match the model in the config (${mismatch})`);
      // No critic (a GRPO run forked with a GAE estimator): the trainer starts one from the policy.
      if (expect.critic && critic) {
        const criticMismatch = describeModelMismatch(expect.critic, critic.config);
        if (criticMismatch) throw new CheckpointError(`checkpoint ${dir}: critic does not match the config (${criticMismatch})`);
      }
    }
    const state = JSON.parse(need('state.json').toString('utf8')) as TrainingState;
    const tokenizer = WordByteTokenizer.fromJSON(JSON.parse(need('tokenizer.json').toString('utf8')));
    return {
      policy,
      critic,
      reference,
      actorOptimizer: decodeOptimizer(need('optimizer.actor.safetensors'), dir),
      criticOptimizer: files['optimizer.critic.safetensors'] ? decodeOptimizer(files['optimizer.critic.safetensors'], dir) : null,
      tokenizer,
      configYaml: need('config.yaml').toString('utf8'),
      state,
    };
  } catch (error) {
    for (const model of models) model.dispose();
    throw error;
  }
}

/** Reads only the resolved config of a checkpoint (to rebuild a run before loading weights). */
export function readCheckpointConfig(dir: string): string {
  const bytes = readCheckpointFiles(dir)['config.yaml'];
  if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no config.yaml`);
  return bytes.toString('utf8');
}

/** The unresolved config of a checkpoint; null for checkpoints written before it was kept. */
export function readCheckpointSourceConfig(dir: string): string | null {
  return readCheckpointFiles(dir)['config.source.yaml']?.toString('utf8') ?? null;
}

async function encodeOptimizer(optimizer: Adam): Promise<Buffer> {
  const { tensors, step } = await optimizer.state();
  return encodeSafetensors(tensors, { 'turnlab.optimizer': 'adam', 'turnlab.step': String(step) });
}

function decodeOptimizer(bytes: Uint8Array, dir: string): OptimizerSnapshot {
  const content = decodeSafetensors(bytes, `${dir} optimizer state`);
  return { tensors: content.tensors, step: Number(content.metadata['turnlab.step'] ?? 0) };
}

/**
 * Loads a checkpoint as a run with `cfg` would, and frees it: lets a caller refuse a truncated,
 * altered or mismatched checkpoint before changing anything it has stored.
 */
export function verifyCheckpoint(dir: string, expect: { policy: TransformerConfig; critic: TransformerConfig | null }): void {
  const loaded = loadCheckpoint(dir, expect);
  for (const model of [loaded.policy, loaded.critic, loaded.reference]) model?.dispose();
}

/** The tokenizer size recorded in a checkpoint, to build the configs its models must match. */
export function checkpointVocabSize(dir: string): number {
  const bytes = readCheckpointFiles(dir)['tokenizer.json'];
  if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no tokenizer.json`);
  return WordByteTokenizer.fromJSON(JSON.parse(bytes.toString('utf8'))).vocabSize;
}
