/**
 * A run whose policy is a pretrained Hugging Face model (`actor_rollout_ref.model.path`, verl's
 * key): the policy with LoRA adapters or fully trainable, the reference as the same weights with
 * the adapters off (no second copy) or, when every weight trains, a frozen second copy, and the
 * critic as the same base with a value head. Checkpoints hold what trains (TurnLab's layout, for
 * exact resume) and, with LoRA, the adapter in PEFT's layout beside it, so the checkpoint folder
 * itself loads in Python with `PeftModel.from_pretrained(base, folder)`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseRunConfig } from '../config/load';
import type { RunConfig } from '../config/schema';
import { HfModelError, parseHfConfig, type HfDecoderConfig } from '../model/hf/config';
import { HfDecoder, trainableShapes, type HfDecoderOptions } from '../model/hf/decoder';
import { hfDecoderBuilder, openHfModelFolder, resolveModelFolder, type HfModelFolder } from '../model/hf/load';
import { findArchitecture } from '../model/hf/architectures';
import { resolveTargetModules, type LoraSettings } from '../model/hf/lora';
import { peftAdapterConfig, peftTensors } from '../model/hf/peft';
import type { HfTokenizer } from '../model/hf/tokenizer';
import { encodeHfSafetensors } from '../model/hf/weights';
import { decodeSafetensors, encodeSafetensors, type NamedArray } from '../model/safetensors';
import type { FrozenModel } from '../model/trainable-model';
import { deriveSeed } from '../rng';
import { checkOptimizerState, readCheckpointBase, readCheckpointConfig, readable, type CheckpointBase, type TrainingState } from './checkpoint';
import { CheckpointError } from './checkpoint-files';
import type { WorkerModelSpec } from '../workers/protocol';

export function usesPretrainedModel(cfg: RunConfig): boolean {
  return cfg.actor_rollout_ref.model.path !== null;
}

/**
 * verl's lora_rank / lora_alpha / target_modules; null when every weight trains (rank 0).
 * "all-linear" is what the architecture's descriptor lists.
 */
export function pretrainedLora(cfg: RunConfig, architecture: string): LoraSettings | null {
  const m = cfg.actor_rollout_ref.model;
  if (m.lora_rank === 0) return null;
  return { rank: m.lora_rank, alpha: m.lora_alpha, targetModules: resolveTargetModules(m.target_modules, findArchitecture(architecture)?.loraTargets) };
}

export interface PretrainedModels {
  folder: HfModelFolder;
  tokenizer: HfTokenizer;
  policy: HfDecoder;
  critic: HfDecoder | null;
  reference: FrozenModel | null;
  /** How a worker thread builds the same models (trainer.workers). */
  workerSpecs: PretrainedWorkerSpecs;
  /**
   * Checkpoint files of what trains. `critic: false` leaves the critic out: a warm start trains
   * the policy alone, and a resume builds the same untouched critic again from its seed.
   */
  modelFiles(options?: { critic: boolean }): Promise<Record<string, Uint8Array | string>>;
  dispose(): void;
}

type PretrainedSpec = Extract<WorkerModelSpec, { kind: 'pretrained' }>;
export interface PretrainedWorkerSpecs {
  policy: PretrainedSpec;
  critic?: PretrainedSpec;
  reference?: PretrainedSpec | Extract<WorkerModelSpec, { kind: 'adapterless' }>;
}

/**
 * The run's pretrained models as build instructions: the folder and each role's decoder options
 * (LoRA, the seed of its adapters and value head, the context length); a LoRA run's reference is
 * the policy with its adapters off, a fully trained run's a frozen second build.
 */
function pretrainedModelSpecs(cfg: RunConfig, folder: HfModelFolder, roles: { critic: boolean; reference: boolean }): PretrainedWorkerSpecs {
  const lora = pretrainedLora(cfg, folder.config.architecture);
  const seed = cfg.trainer.seed;
  const contextLength = Math.min(cfg.model.context_length, folder.config.maxPositionEmbeddings);
  const dtype = cfg.actor_rollout_ref.model.dtype;
  const spec = (options: HfDecoderOptions): PretrainedSpec => ({ kind: 'pretrained', dir: folder.dir, config: folder.config, options: { contextLength, dtype, ...options } });
  const specs: PretrainedWorkerSpecs = { policy: spec({ lora, seed: deriveSeed(seed, 'init', 'policy') }) };
  if (roles.critic) specs.critic = spec({ lora, seed: deriveSeed(seed, 'init', 'critic'), lmHead: false, valueHead: true });
  if (roles.reference) specs.reference = lora ? { kind: 'adapterless', of: 'policy' } : spec({ lora: null });
  return specs;
}

/**
 * Loads the folder's weights once and builds the run's models from them; with `resume`, the
 * trained parameters come from that checkpoint (a critic it lacks starts fresh).
 */
export async function openPretrainedModels(
  cfg: RunConfig,
  roles: { critic: boolean; reference: boolean },
  resume?: { dir: string; base: CheckpointBase },
): Promise<PretrainedModels> {
  const folder = await openHfModelFolder(modelPath(cfg));
  const specs = pretrainedModelSpecs(cfg, folder, roles);
  const builder = await hfDecoderBuilder(folder.dir, folder.config);
  const made: Array<{ dispose(): void }> = [];
  try {
    const policy = builder(specs.policy.options);
    made.push(policy);
    // With LoRA the critic reads the policy's frozen base instead of a second copy.
    const critic = specs.critic ? builder({ ...specs.critic.options, sharedBase: policy }) : null;
    if (critic) made.push(critic);
    const reference: FrozenModel | null = !specs.reference ? null : specs.reference.kind === 'adapterless' ? policy.withoutAdapters() : builder(specs.reference.options);
    if (reference) made.push(reference);
    if (resume) {
      policy.loadTrainable(trainedArrays(resume.dir, resume.base, 'policy.safetensors')!, `${resume.dir}/policy.safetensors`);
      const criticArrays = critic ? trainedArrays(resume.dir, resume.base, 'critic.safetensors') : null;
      if (critic && criticArrays) critic.loadTrainable(criticArrays, `${resume.dir}/critic.safetensors`);
    }
    const lora = specs.policy.options.lora ?? null;
    return {
      folder,
      tokenizer: folder.tokenizer,
      policy,
      critic,
      reference,
      workerSpecs: specs,
      async modelFiles(options = { critic: true }) {
        const files: Record<string, Uint8Array | string> = {
          'policy.safetensors': encodeSafetensors(await policy.trainableArrays(), { 'turnlab.role': 'policy', 'turnlab.model': folder.dir }),
        };
        if (critic && options.critic) files['critic.safetensors'] = encodeSafetensors(await critic.trainableArrays(), { 'turnlab.role': 'critic', 'turnlab.model': folder.dir });
        if (lora) {
          files['adapter_config.json'] = `${JSON.stringify(peftAdapterConfig(lora, folder.hubId ?? folder.dir), null, 2)}\n`;
          files['adapter_model.safetensors'] = encodeHfSafetensors(await peftTensors(policy), 'F32');
        }
        return files;
      },
      dispose() {
        for (const model of made) model.dispose();
      },
    };
  } catch (error) {
    for (const model of made) model.dispose();
    throw error;
  }
}

/**
 * The trained policy of a pretrained run's checkpoint, for export and generation: the model
 * folder its config names with the checkpoint's trained parameters. A from-scratch run's
 * checkpoint is refused: it has no Hugging Face form.
 */
export async function openCheckpointPolicy(dir: string): Promise<PretrainedModels & { iteration: number }> {
  const cfg = parseRunConfig(parseYaml(readCheckpointConfig(dir)), `${dir}/config.yaml`);
  if (!usesPretrainedModel(cfg)) {
    throw new HfModelError(`checkpoint ${dir} is of a model trained from scratch (TurnLab's own transformer), which has no Hugging Face form; export-model and generate take a run started from actor_rollout_ref.model.path (turnlab eval plays this one's policy)`);
  }
  verifyPretrainedCheckpoint(dir, cfg, { critic: false });
  const base = readCheckpointBase(dir);
  const models = await openPretrainedModels(cfg, { critic: false, reference: false }, { dir, base });
  return { ...models, iteration: base.state.iteration };
}

function modelPath(cfg: RunConfig): string {
  const path = cfg.actor_rollout_ref.model.path;
  if (path === null) throw new Error('actor_rollout_ref.model.path is not set');
  return path;
}

function trainedArrays(dir: string, base: CheckpointBase, file: string): Record<string, NamedArray> | null {
  const bytes = base.files[file];
  if (!bytes) return null;
  return readable(dir, file, () => decodeSafetensors(bytes, `${dir}/${file}`).tensors);
}

/** The folder's config.json alone (no weights), for checks before anything is loaded. */
export function readPretrainedConfig(cfg: RunConfig): HfDecoderConfig {
  const path = modelPath(cfg);
  // A Hub id (`Qwen/Qwen2.5-0.5B-Instruct`) names its snapshot in the Hugging Face cache, as when the run started.
  const configPath = join(resolveModelFolder(path), 'config.json');
  if (!existsSync(configPath)) {
    throw new HfModelError(`actor_rollout_ref.model.path: ${path} has no config.json; point it at a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)`);
  }
  return parseHfConfig(JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>, configPath);
}

/**
 * Verifies a pretrained run's checkpoint against `cfg` without loading the model: the common
 * files, then every trained tensor and its Adam moments against the shapes the model folder and
 * the LoRA settings give. A CheckpointError names the file and the tensor.
 */
export function verifyPretrainedCheckpoint(dir: string, cfg: RunConfig, roles: { critic: boolean }, iteration?: number): TrainingState {
  const base = readCheckpointBase(dir, iteration);
  const hf = readPretrainedConfig(cfg);
  const lora = pretrainedLora(cfg, hf.architecture);
  const policyShapes = trainableShapes(hf, { lora });
  checkArrays(dir, 'policy.safetensors', trainedArrays(dir, base, 'policy.safetensors'), policyShapes);
  checkOptimizerState(base.actorOptimizer, policyShapes, dir, 'optimizer.actor.safetensors');
  const critic = roles.critic ? trainedArrays(dir, base, 'critic.safetensors') : null;
  if (critic) {
    const criticShapes = trainableShapes(hf, { lora, lmHead: false, valueHead: true });
    checkArrays(dir, 'critic.safetensors', critic, criticShapes);
    if (base.criticOptimizer) checkOptimizerState(base.criticOptimizer, criticShapes, dir, 'optimizer.critic.safetensors');
  }
  return base.state;
}

/** An adapter's shape differs in its rank: the checkpoint fixes it, so say which rank it has. */
function rankHint(name: string, stored: readonly number[], wanted: readonly number[]): string {
  if (!/lora_[AB]/.test(name) || stored.length !== 2 || wanted.length !== 2) return '';
  const rankAt = name.includes('lora_A') ? 1 : 0;
  const rank = stored[rankAt];
  // The same rank with another width: the adapters were trained on another model's layers.
  if (rank === wanted[rankAt]) {
    return `: the checkpoint was trained on a model whose layers have other widths; resume or fork it on the model it was trained on (actor_rollout_ref.model.path in turnlab show <run> --config)`;
  }
  return `: the checkpoint was trained with lora_rank ${rank}, which sets its adapters' shapes; resume or fork it with actor_rollout_ref.model.lora_rank=${rank}`;
}

function checkArrays(dir: string, file: string, arrays: Record<string, NamedArray> | null, shapes: Array<[string, number[]]>): void {
  if (!arrays) throw new CheckpointError(`checkpoint ${dir} has no ${file}`);
  for (const [name, shape] of shapes) {
    const entry = arrays[name];
    if (!entry) {
      throw new CheckpointError(`checkpoint ${dir}: ${file} lacks \`${name}\`; it was trained with other actor_rollout_ref.model settings (lora_rank, target_modules) or another model`);
    }
    if (entry.shape.join(',') !== shape.join(',')) {
      throw new CheckpointError(`checkpoint ${dir}: ${file} field \`${name}\` has shape [${entry.shape}], the model and LoRA settings give [${shape}]${rankHint(name, entry.shape, shape)}`);
    }
  }
  // Trained tensors the settings have no place for would be dropped without a word (target_modules narrowed on resume).
  const wanted = new Set(shapes.map(([name]) => name));
  const extra = Object.keys(arrays).filter((name) => !wanted.has(name));
  if (extra.length > 0) {
    const modules = [...new Set(extra.map((name) => /\.(\w+)\.lora_[AB]$/.exec(name)?.[1]).filter((m): m is string => m !== undefined))];
    const hint = modules.length > 0
      ? `: it was trained with adapters on ${modules.join(', ')} too, which actor_rollout_ref.model.target_modules no longer names; resume or fork with the target_modules it was trained with (turnlab show <run> --config)`
      : `: it was trained with other actor_rollout_ref.model settings or another model`;
    throw new CheckpointError(`checkpoint ${dir}: ${file} holds ${extra.length} trained tensor(s) the settings have no place for (\`${extra[0]}\`${extra.length > 1 ? ', ...' : ''})${hint}`);
  }
}
