import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RunModelDto } from '../../preload/contract';
import { baseParameterCount, findInHubCache, looksLikeHubId, parseHfConfig, resolveTargetModules } from '../../trainer-core';
import type { RunRecord } from '../store/types';

/** The folder's config.json, or null when it cannot be read now (a folder moved away). */
function configJsonOf(folder: string): Record<string, unknown> | null {
  try {
    const json = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as unknown;
    return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function architectureOf(config: Record<string, unknown> | null): string | null {
  const names = config?.architectures;
  return Array.isArray(names) && typeof names[0] === 'string' ? names[0] : null;
}

/** The base model's parameters as the trainer's log line counts them; null for a config it cannot read. */
function baseParametersOf(config: Record<string, unknown> | null): number | null {
  if (config === null) return null;
  try {
    return baseParameterCount(parseHfConfig(config));
  } catch {
    return null;
  }
}

/** The folder a run's model.path names: a Hub id's snapshot in the Hugging Face cache (HF_HUB_CACHE), as the trainer read it. */
function folderOf(path: string): string {
  if (existsSync(path) || !looksLikeHubId(path)) return resolve(path);
  const lookup = findInHubCache(path);
  return lookup.found ? lookup.dir : resolve(path);
}

/** config.json keys that set a model's shapes and vocabulary: two folders that differ in one hold different models. */
const SHAPE_KEYS = ['architectures', 'vocab_size', 'hidden_size', 'num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'intermediate_size', 'tie_word_embeddings'];

/**
 * Where the model folder `loads` differs from `trainedOn` in a key of its shape, as
 * "vocab_size 151936 there, 4096 here"; null when they agree or either config.json cannot be
 * read (a folder moved away: only the user can vouch for the copy).
 */
export function modelShapeDifference(trainedOn: string, loads: string): string | null {
  const [a, b] = [configJsonOf(folderOf(trainedOn)), configJsonOf(folderOf(loads))];
  if (a === null || b === null) return null;
  const differ = SHAPE_KEYS.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
  return differ.length === 0 ? null : differ.map((key) => `${key} ${JSON.stringify(a[key]) ?? 'unset'} there, ${JSON.stringify(b[key]) ?? 'unset'} here`).join(', ');
}

/** The adapted modules as the trainer resolves them; a list a later TurnLab no longer knows is shown as stored. */
function targetModules(value: string | readonly string[] | undefined): string[] {
  try {
    return resolveTargetModules(value ?? 'all-linear');
  } catch {
    return typeof value === 'string' ? [value] : [...(value ?? [])];
  }
}

/**
 * The policy a run trains, read from its stored config (the resolved one, so every key is there
 * for runs of this version; older ones may lack keys) and its stored parameter count; only the
 * architecture comes from the model folder itself.
 */
export function describeRunModel(run: RunRecord): RunModelDto {
  const pretrained = run.config.actor_rollout_ref?.model;
  const path = pretrained?.path;
  if (typeof path === 'string' && path !== '') {
    const rank = pretrained?.lora_rank ?? 0;
    const config = configJsonOf(folderOf(path));
    // The stored count is every parameter the policy holds, adapters included; the trainer's log
    // line says the base model's and the adapters' apart, and so does the workbench.
    const base = baseParametersOf(config);
    const adapters = rank > 0 && base !== null && run.parameterCount !== null && run.parameterCount >= base ? run.parameterCount - base : null;
    return {
      kind: 'pretrained',
      path,
      name: basename(resolve(path)),
      architecture: architectureOf(config),
      parameterCount: base ?? run.parameterCount,
      trainableCount: adapters,
      lora: rank > 0 ? { rank, alpha: Number(pretrained?.lora_alpha), targetModules: targetModules(pretrained?.target_modules) } : null,
    };
  }
  const model = run.config.model;
  const sized = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return { kind: 'scratch', layers: sized(model?.n_layer), dModel: sized(model?.d_model), parameterCount: run.parameterCount };
}
