import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CODE_LOG_PREFIX } from '../../preload/contract';
import type { Store } from '../store/db';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `git` in the checkout, or null where there is none (an installed app, no git on PATH, a timeout). */
function git(args: string[]): string | null {
  if (!existsSync(`${root}.git`)) return null;
  const result = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
  return result.status === 0 ? result.stdout.trim() : null;
}

let cached: string | undefined;

/**
 * Which code trained a run, as W&B and MLflow record it: TurnLab's version, the checkout's commit
 * and whether tracked files differ from it, Node, the platform and the host. Kept in the run's
 * log at every start, so a run resumed under other code says so where it happened.
 */
export function codeVersionLine(): string {
  if (cached !== undefined) return cached;
  const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string };
  const commit = git(['rev-parse', '--short=12', 'HEAD']);
  const changed = commit === null ? null : git(['status', '--porcelain', '--untracked-files=no']);
  const source = commit === null ? 'not a git checkout' : `git ${commit}${changed ? ' with uncommitted changes' : ''}`;
  cached = `${CODE_LOG_PREFIX}turnlab ${version}, ${source}, Node ${process.version}, ${process.platform} ${process.arch}, host ${hostname()}`;
  return cached;
}

/** The code the run's latest trainer ran (its last `code:` log line, without the prefix); null for runs trained before TurnLab logged it. */
export function lastCodeVersion(store: Store, runId: number): string | null {
  let found: string | null = null;
  for (let after = 0; ; ) {
    const page = store.logs.list(runId, after);
    if (page.length === 0) return found;
    for (const entry of page) if (entry.line.startsWith(CODE_LOG_PREFIX)) found = entry.line.slice(CODE_LOG_PREFIX.length);
    after = page[page.length - 1].id;
  }
}
