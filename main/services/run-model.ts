import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { RunModelDto } from '../../preload/contract';
import { LORA_MODULES } from '../../trainer-core';
import type { RunRecord } from '../store/types';

type ConfigTree = Record<string, unknown>;

function section(tree: unknown, ...keys: string[]): ConfigTree {
  let node = tree;
  for (const key of keys) node = node && typeof node === 'object' ? (node as ConfigTree)[key] : undefined;
  return node && typeof node === 'object' ? (node as ConfigTree) : {};
}

/** The folder's config.json names its architecture; a folder moved away since reads null. */
function architectureOf(folder: string): string | null {
  try {
    const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as { architectures?: unknown };
    return Array.isArray(config.architectures) && typeof config.architectures[0] === 'string' ? config.architectures[0] : null;
  } catch {
    return null;
  }
}

/**
 * The policy a run trains, read from its stored config (the resolved one, so every key is there)
 * and its stored parameter count; only the architecture comes from the model folder itself.
 */
export function describeRunModel(run: RunRecord): RunModelDto {
  const pretrained = section(run.config, 'actor_rollout_ref', 'model');
  const path = pretrained.path;
  if (typeof path === 'string' && path !== '') {
    const rank = Number(pretrained.lora_rank ?? 0);
    const modules = pretrained.target_modules;
    return {
      kind: 'pretrained',
      path,
      name: basename(resolve(path)),
      architecture: architectureOf(resolve(path)),
      parameterCount: run.parameterCount,
      lora: rank > 0
        ? {
            rank,
            alpha: Number(pretrained.lora_alpha),
            targetModules: modules === 'all-linear' ? [...LORA_MODULES] : Array.isArray(modules) ? modules.map(String) : [String(modules)],
          }
        : null,
    };
  }
  const model = section(run.config, 'model');
  return { kind: 'scratch', layers: Number(model.n_layer), dModel: Number(model.d_model), parameterCount: run.parameterCount };
}
