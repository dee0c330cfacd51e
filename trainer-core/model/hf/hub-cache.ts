/**
 * `actor_rollout_ref.model.path: Qwen/Qwen2.5-0.5B-Instruct`, as verl's and RAGEN's configs
 * write it: a Hub id that is not a folder here is read from the local Hugging Face cache, where
 * transformers and `hf download` keep models (offline, as with HF_HUB_OFFLINE=1). TurnLab never
 * downloads; a model missing from the cache is refused with the command that fetches it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A Hub repository id: `org/name`, no more segments, no leading dot or slash (not a path). */
const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]*[A-Za-z0-9_]$/;

export function looksLikeHubId(path: string): boolean {
  return HUB_ID.test(path) && !path.includes('..');
}

/** huggingface_hub's cache folder: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME or ~/.cache, then huggingface/hub. */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub');
}

export type HubLookup = { found: true; dir: string } | { found: false; reason: string };

/**
 * The snapshot folder of `id` in the cache: the one `refs/main` names, else the only one there.
 * The snapshot's files are links into `blobs/`, which reading follows.
 */
export function findInHubCache(id: string, cacheDir = hubCacheDir()): HubLookup {
  const repo = join(cacheDir, `models--${id.replace('/', '--')}`);
  const snapshots = join(repo, 'snapshots');
  if (!existsSync(snapshots)) return { found: false, reason: `${id} is not in the Hugging Face cache (${cacheDir})` };
  const main = join(repo, 'refs', 'main');
  if (existsSync(main)) {
    const dir = join(snapshots, readFileSync(main, 'utf8').trim());
    if (existsSync(dir)) return { found: true, dir };
  }
  const all = readdirSync(snapshots).filter((name) => statSync(join(snapshots, name)).isDirectory());
  if (all.length === 1) return { found: true, dir: join(snapshots, all[0]) };
  return {
    found: false,
    reason: `${id} has ${all.length === 0 ? 'no snapshot' : `${all.length} snapshots and no refs/main to choose one`} in the Hugging Face cache (${snapshots}); give the snapshot folder itself`,
  };
}
