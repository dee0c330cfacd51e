import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { EPISODES_PER_BATCH, METRICS_PER_BATCH, TURNS_PER_EPISODE } from './crash-batches';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const KILL_AT_BATCH = 5;

let temp: TempDir;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

/** Starts the writer and SIGKILLs it as soon as it announces batch KILL_AT_BATCH. */
function runWriterUntilKilled(dataDir: string): Promise<{ lastCommitted: number; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dataDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lastCommitted = -1;
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [word, n] = line.split(' ');
        if (word === 'committed') lastCommitted = Number(n);
        if (word === 'begin' && Number(n) === KILL_AT_BATCH) child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited on its own (code ${code}): ${stderr}`));
      else resolve({ lastCommitted, signal });
    });
  });
}

it('a writer killed with SIGKILL mid-batch leaves a sound database holding only whole batches', async () => {
  const { lastCommitted, signal } = await runWriterUntilKilled(temp.dir);
  expect(signal).toBe('SIGKILL');
  expect(lastCommitted).toBeGreaterThanOrEqual(KILL_AT_BATCH - 1);

  const store = openStore(temp.dir);
  try {
    expect(store.integrityCheck()).toEqual(['ok']);
    const [run] = store.runs.list();
    const batches = store.metrics.names(run.id).map((name) => Number(name.split('/')[1])).sort((a, b) => a - b);
    // Every announced commit survived; the batch in flight is either all there or absent. On a
    // loaded machine the kill can land a few batches late, so only the lower bound is fixed.
    expect(batches.length).toBeGreaterThanOrEqual(Math.max(KILL_AT_BATCH, lastCommitted + 1));
    expect(batches).toEqual(batches.map((_, i) => i));
    for (const n of batches) {
      expect(store.metrics.series(run.id, `batch/${n}`)).toHaveLength(METRICS_PER_BATCH);
      const episodes = store.episodes.listByIteration(run.id, n);
      expect(episodes).toHaveLength(EPISODES_PER_BATCH);
      for (const episode of episodes) expect(store.turns.listByEpisode(episode.id)).toHaveLength(TURNS_PER_EPISODE);
    }
    expect(store.episodes.iterations(run.id)).toEqual(batches);
  } finally {
    store.close();
  }
});
