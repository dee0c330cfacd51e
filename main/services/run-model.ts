import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RunModelDto } from '../../preload/contract';
import { findInHubCache, looksLikeHubId, resolveTargetModules } from '../../trainer-core';
import type { RunRecord } from '../store/types';

/** The folder's config.json names its architecture; a folder moved away since reads null. */
function architectureOf(folder: string): string | null {
  try {
    const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as { architectures?: unknown };
    return Array.isArray(config.architectures) && typeof config.architectures[0] === 'string' ? config.architectures[0] : null;
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
    return {
      kind: 'pretrained',
      path,
      name: basename(resolve(path)),
      architecture: architectureOf(folderOf(path)),
      parameterCount: run.parameterCount,
      lora: rank > 0 ? { rank, alpha: Number(pretrained?.lora_alpha), targetModules: targetModules(pretrained?.target_modules) } : null,
    };
  }
  const model = run.config.model;
  const sized = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return { kind: 'scratch', layers: sized(model?.n_layer), dModel: sized(model?.d_model), parameterCount: run.parameterCount };
}
