import { basename } from 'node:path';
import { z } from 'zod';
import type { KlControllerState } from '../algo/kl-controller';
import { describeZodIssue } from '../config/zod-issues';
import type { Adam } from '../model/adam';
import { decodeSafetensors, encodeSafetensors } from '../model/safetensors';
import { WordByteTokenizer } from '../model/tokenizer';
import type { TrainableModel } from '../model/trainable-model';
import { Transformer, type TransformerConfig } from '../model/transformer';
import { decodeModelArrays, encodeModel, type ModelArrays } from '../model/weights';
import type { RngState } from '../rng';
import type { EnvStateManagerState } from '../rollout/es-manager';
import type { CollapseState } from './collapse';
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
  /**
   * Training episodes played and environment steps (actions executed) so far, for comparing runs
   * by the samples they used. Absent in checkpoints written before they were counted: a run
   * resumed from one does not log them.
   */
  totalEpisodes?: number;
  totalEnvSteps?: number;
  /** Mean validation success at this iteration (null without a validation); keep_last_n keeps the best. */
  valSuccess?: number | null;
  /**
   * The collapse detector's memory (the level the run had reached, its latest shares), so a
   * resumed run logs the `rollout/collapse` the uninterrupted one does. Absent in checkpoints
   * written before it was kept: a run resumed from one starts the detector afresh.
   */
  collapse?: CollapseState;
  /**
   * Set only in a warm-start checkpoint (`warm_start.save_freq`): the run had not finished its
   * supervised warm start, whose progress this is; such a checkpoint resumes only its own run.
   */
  warmStart?: WarmStartState;
}

/** Where a supervised warm start stood when its checkpoint was saved: enough to go on bit-exactly. */
export interface WarmStartState {
  /** Steps done, and of how many. */
  step: number;
  steps: number;
  /** The stream that picks each step's demonstrations, after step `step`. */
  rng: RngState;
  /** The loss of each step so far (null where it was not a number). */
  losses: Array<number | null>;
  /** DAgger's sampling stream (warm_start.dagger_rounds); its demonstrations are in WARM_START_POOL_FILE. */
  daggerRng?: RngState;
}

export interface CheckpointContents {
  /** The models and the tokenizer they read, as files: scratchModelFiles, or a pretrained run's. */
  modelFiles: Record<string, Uint8Array | string>;
  actorOptimizer: Adam;
  criticOptimizer: Adam | null;
  configYaml: string;
  /** The config before `${}` resolution (config.source.yaml), so overrides can re-resolve it. */
  sourceConfigYaml?: string;
  state: TrainingState;
  /** Files beside the models and the state: a warm start's DAgger demonstrations. */
  extraFiles?: Record<string, string>;
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
  /** Every file of the checkpoint, as verified against its manifest. */
  files: Record<string, Buffer>;
}

export interface OptimizerSnapshot {
  tensors: ReturnType<typeof decodeSafetensors>['tensors'];
  step: number;
}

export async function saveCheckpoint(dir: string, c: CheckpointContents): Promise<{ sizeBytes: number; sha256: string }> {
  const files: Record<string, Uint8Array | string> = {
    ...c.modelFiles,
    'optimizer.actor.safetensors': await encodeOptimizer(c.actorOptimizer),
    'config.yaml': c.configYaml,
    'state.json': JSON.stringify(inSchemaOrder(c.state), null, 2),
    ...c.extraFiles,
  };
  if (c.criticOptimizer) files['optimizer.critic.safetensors'] = await encodeOptimizer(c.criticOptimizer);
  if (c.sourceConfigYaml !== undefined) files['config.source.yaml'] = c.sourceConfigYaml;
  const { sizeBytes, manifestSha256 } = writeCheckpointFiles(dir, files);
  return { sizeBytes, sha256: manifestSha256 };
}

/** A from-scratch run's models and its fitted tokenizer as checkpoint files. */
export async function scratchModelFiles(m: {
  policy: Transformer;
  critic: Transformer | null;
  reference: Transformer | null;
  tokenizer: WordByteTokenizer;
}): Promise<Record<string, Uint8Array | string>> {
  const files: Record<string, Uint8Array | string> = {
    'policy.safetensors': await encodeModel(m.policy, { 'turnlab.role': 'policy' }),
    'tokenizer.json': JSON.stringify(m.tokenizer.toJSON()),
  };
  if (m.critic) files['critic.safetensors'] = await encodeModel(m.critic, { 'turnlab.role': 'critic' });
  if (m.reference) files['reference.safetensors'] = await encodeModel(m.reference, { 'turnlab.role': 'reference' });
  return files;
}

/** What a checkpoint is checked against before a run uses it. */
export interface CheckpointExpectation {
  /** The model shapes the config asks for. */
  policy: TransformerConfig;
  critic: TransformerConfig | null;
  /** The iteration the checkpoint is recorded at (its folder name says it too). */
  iteration?: number;
}

const u32 = z.number().int().min(0).max(0xffffffff);
const rngState = z.tuple([u32, u32, u32, u32]);
const finite = z.number().refine(Number.isFinite, 'must be a finite number');
/** state.json as saveCheckpoint writes it; anything else is an altered or foreign file. */
const trainingStateSchema = z.object({
  iteration: z.number().int().nonnegative(),
  rng: z.object({ sampling: rngState, minibatch: rngState, validation: rngState }),
  esTrain: z.object({ resetCount: z.number().int().nonnegative(), seedOffset: z.number().int().nonnegative().optional() }),
  klController: z.discriminatedUnion('type', [
    z.object({ type: z.literal('fixed'), value: finite }),
    z.object({ type: z.literal('adaptive'), value: finite, target: finite, horizon: finite }),
  ]),
  totalTokens: z.number().nonnegative(),
  totalEpisodes: z.number().int().nonnegative().optional(),
  totalEnvSteps: z.number().int().nonnegative().optional(),
  valSuccess: finite.nullable().optional(),
  collapse: z.object({ recent: z.array(finite), earlier: finite, collapsed: z.boolean() }).optional(),
  warmStart: z
    .object({
      step: z.number().int().nonnegative(),
      steps: z.number().int().positive(),
      rng: rngState,
      losses: z.array(finite.nullable()),
      daggerRng: rngState.optional(),
    })
    .refine((w) => w.step <= w.steps && w.losses.length === w.step, 'its step must be at most its steps, with one loss a step')
    .optional(),
});

/**
 * The state's fields in the order the schema gives them: a resumed or forked run sets some of them
 * at other moments than a fresh one (the collapse detector's memory, the validation success), and
 * its checkpoint must be the same bytes as the uninterrupted run's.
 */
function inSchemaOrder(state: TrainingState): Record<string, unknown> {
  const fields = state as unknown as Record<string, unknown>;
  const known = Object.keys(trainingStateSchema.shape).filter((key) => fields[key] !== undefined);
  return Object.fromEntries([...known, ...Object.keys(fields).filter((key) => !known.includes(key))].map((key) => [key, fields[key]]));
}

/** Parses state.json; a CheckpointError names the field that is wrong. */
export function parseTrainingState(bytes: Uint8Array, dir: string): TrainingState {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new CheckpointError(`checkpoint ${dir}: state.json is not valid JSON`);
  }
  const parsed = trainingStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [message] = describeZodIssue(issue, raw, trainingStateSchema).map((i) => i.message);
    throw new CheckpointError(`checkpoint ${dir}: state.json is not a training state: ${message ?? issue.message}`);
  }
  return parsed.data as TrainingState;
}

/** The iteration a folder named `iter-<n>` holds, or null for another name. */
function folderIteration(dir: string): number | null {
  const match = /^iter-(\d+)$/.exec(basename(dir));
  return match ? Number(match[1]) : null;
}

/** What every checkpoint holds besides its models, read and verified. */
export interface CheckpointBase {
  files: Record<string, Buffer>;
  state: TrainingState;
  actorOptimizer: OptimizerSnapshot;
  criticOptimizer: OptimizerSnapshot | null;
  configYaml: string;
}

/**
 * Reads a checkpoint's files against the manifest, state.json's fields and iteration (the
 * folder's name and `iteration` when given) and the optimizer files; a CheckpointError names
 * the file and the field.
 */
export function readCheckpointBase(dir: string, iteration?: number): CheckpointBase {
  const files = readCheckpointFiles(dir);
  const need = (name: string) => {
    const bytes = files[name];
    if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no ${name}`);
    return bytes;
  };
  const state = parseTrainingState(need('state.json'), dir);
  const named = folderIteration(dir);
  if (named !== null && named !== state.iteration) {
    throw new CheckpointError(`checkpoint ${dir}: state.json field \`iteration\` is ${state.iteration}, but the folder is iter-${named} (state.json was replaced)`);
  }
  if (iteration !== undefined && iteration !== state.iteration) {
    throw new CheckpointError(`checkpoint ${dir}: state.json field \`iteration\` is ${state.iteration}, but the checkpoint is recorded at iteration ${iteration}`);
  }
  const actorOptimizer = readable(dir, 'optimizer.actor.safetensors', () => decodeOptimizer(need('optimizer.actor.safetensors'), dir));
  const criticOptimizer = files['optimizer.critic.safetensors']
    ? readable(dir, 'optimizer.critic.safetensors', () => decodeOptimizer(files['optimizer.critic.safetensors'], dir))
    : null;
  return { files, state, actorOptimizer, criticOptimizer, configYaml: need('config.yaml').toString('utf8') };
}

/** A from-scratch run's checkpoint read and checked, its models still arrays (no tensor made yet). */
interface CheckedCheckpoint extends CheckpointBase {
  tokenizer: WordByteTokenizer;
  policy: ModelArrays;
  critic: ModelArrays | null;
  reference: ModelArrays | null;
}

/**
 * Reads a from-scratch run's checkpoint and checks it: readCheckpointBase, then the model shapes
 * and the optimizer moments against `expect`. Anything wrong is a CheckpointError naming the file
 * and the field. Makes no tensor, so it runs before a backend is chosen and frees nothing.
 */
function checkCheckpoint(dir: string, expect?: CheckpointExpectation): CheckedCheckpoint {
  const base = readCheckpointBase(dir, expect?.iteration);
  const { files } = base;
  const tokenizerBytes = files['tokenizer.json'];
  if (!tokenizerBytes) throw new CheckpointError(`checkpoint ${dir} has no tokenizer.json`);
  const tokenizer = readable(dir, 'tokenizer.json', () => WordByteTokenizer.fromJSON(JSON.parse(tokenizerBytes.toString('utf8'))));
  const model = (name: string): ModelArrays | null => {
    const bytes = files[name];
    return bytes ? readable(dir, name, () => decodeModelArrays(bytes, `${dir}/${name}`)) : null;
  };
  if (!files['policy.safetensors']) throw new CheckpointError(`checkpoint ${dir} has no policy.safetensors`);
  const policy = model('policy.safetensors')!;
  const critic = model('critic.safetensors');
  const reference = model('reference.safetensors');
  if (expect) {
    const mismatch = describeModelMismatch(expect.policy, policy.config);
    if (mismatch) {
      // The policy's value head is the one model difference a run setting makes.
      const hint = expect.policy.valueHead !== policy.config.valueHead
        ? `; the policy has a value head exactly when actor_rollout_ref.actor.aux_value_coef > 0: set it ${policy.config.valueHead ? 'above 0' : 'to 0'} as the checkpoint's run did`
        : "; a resumed or forked run keeps its checkpoint's model: leave these keys as the run had them, or train a new run";
      throw new CheckpointError(`checkpoint ${dir} does not match the model in the config (${mismatch})${hint}`);
    }
    // No critic (a GRPO run forked with a GAE estimator): the trainer starts one from the policy.
    if (expect.critic && critic) {
      const criticMismatch = describeModelMismatch(expect.critic, critic.config);
      if (criticMismatch) throw new CheckpointError(`checkpoint ${dir}: critic does not match the config (${criticMismatch})`);
    }
  }
  checkOptimizerState(base.actorOptimizer, policy.shapes, dir, 'optimizer.actor.safetensors');
  if (critic && base.criticOptimizer) checkOptimizerState(base.criticOptimizer, critic.shapes, dir, 'optimizer.critic.safetensors');
  return { ...base, tokenizer, policy, critic, reference };
}

/** Loads a from-scratch run's checkpoint once checkCheckpoint has found nothing wrong with it. */
export function loadCheckpoint(dir: string, expect?: CheckpointExpectation): LoadedCheckpoint {
  const checked = checkCheckpoint(dir, expect);
  const built: Transformer[] = [];
  const build = (model: ModelArrays | null): Transformer | null => {
    if (!model) return null;
    const transformer = Transformer.fromArrays(model.config, model.arrays);
    built.push(transformer);
    return transformer;
  };
  const { state, actorOptimizer, criticOptimizer, tokenizer, configYaml, files } = checked;
  try {
    const policy = build(checked.policy)!;
    return { policy, critic: build(checked.critic), reference: build(checked.reference), actorOptimizer, criticOptimizer, tokenizer, configYaml, state, files };
  } catch (error) {
    // Out of backend memory on the second model: free the first.
    for (const transformer of built) transformer.dispose();
    throw error;
  }
}

/** Runs a decoder; a file that passed the manifest but does not decode is named in the error. */
export function readable<T>(dir: string, name: string, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError(`checkpoint ${dir}: ${name} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The Adam moments must cover every parameter of their model with its shape. */
export function checkOptimizerState(snapshot: OptimizerSnapshot, model: TrainableModel | Array<[string, readonly number[]]>, dir: string, file: string): void {
  const shapes = Array.isArray(model) ? model : model.namedVariables().map(([name, variable]): [string, readonly number[]] => [name, variable.shape]);
  for (const [name, shape] of shapes) {
    for (const suffix of ['m', 'v']) {
      const entry = snapshot.tensors[`${name}.${suffix}`];
      if (!entry) throw new CheckpointError(`checkpoint ${dir}: ${file} lacks \`${name}.${suffix}\``);
      if (entry.shape.join(',') !== shape.join(',')) {
        throw new CheckpointError(`checkpoint ${dir}: ${file} field \`${name}.${suffix}\` has shape [${entry.shape}], the model has [${shape}]`);
      }
    }
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

export function decodeOptimizer(bytes: Uint8Array, dir: string): OptimizerSnapshot {
  const content = decodeSafetensors(bytes, `${dir} optimizer state`);
  return { tensors: content.tensors, step: Number(content.metadata['turnlab.step'] ?? 0) };
}

/**
 * Checks a checkpoint as loading it for a run with `cfg` would, without loading it: lets a caller
 * refuse a truncated, altered or mismatched checkpoint before changing anything it has stored.
 */
export function verifyCheckpoint(dir: string, expect: CheckpointExpectation): TrainingState {
  return checkCheckpoint(dir, expect).state;
}

/** The tokenizer size recorded in a checkpoint, to build the configs its models must match. */
export function checkpointVocabSize(dir: string): number {
  const bytes = readCheckpointFiles(dir)['tokenizer.json'];
  if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no tokenizer.json`);
  return WordByteTokenizer.fromJSON(JSON.parse(bytes.toString('utf8'))).vocabSize;
}
