import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import benchLearning, { EVALUATION_SEED, meanFigure } from '../../bench/learning';
import { openStore } from '../../main/store/db';

const repo = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-bench-learning-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('npm run bench -- learning', () => {
  it("keeps its runs in a data folder, and the row's turnlab eval command plays the final checkpoint to the same figures", async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(...parts.join(' ').split('\n')));
    // 10 of the config's 60 iterations: what is checked is where the figures come from, not how high they are.
    await benchLearning(['bandit', '--seeds', '1', '--episodes', '64', '--data-dir', dataDir, '--set', 'warm_start.save_checkpoint=true', '--set', 'trainer.total_training_steps=10']);
    const row = printed.find((line) => /^\| bandit \| \w+ \| off \| 1 \|/.test(line))!;
    expect(row).toMatch(/^\| bandit \| grpo \| off \| 1 \| \d\.\d{3} \| \d\.\d{3} \| [+-]?\d\.\d{3} ± \d\.\d{3} \| 1\.000 \| \d+ s \| \d+ s \|/);
    const cells = row.split('|').map((c) => c.trim());
    // The gain is after RL less the warm start alone, on the same 64 episodes (each figure rounded).
    expect(Math.abs(Number(cells[7].split(' ')[0]) - (Number(cells[6]) - Number(cells[5])))).toBeLessThanOrEqual(0.0011);

    const store = openStore(dataDir);
    const run = store.runs.resolve('bandit-grpo-s1');
    // RL forked from the shared warm start's policy (iter-0 of its own run): the row's fifth figure is it.
    const warmRun = store.runs.resolve('bandit-warm-start-s1');
    expect(run.parentRunId).toBe(warmRun.id);
    const [warm] = store.evaluations.listByRun(warmRun.id);
    const evaluations = store.evaluations.listByRun(run.id);
    store.close();
    expect([warm.iteration, ...evaluations.map((e) => e.iteration)]).toEqual([0, 10]);
    const [stored] = evaluations;
    expect(warm.metrics['val/Bandit/success']?.toFixed(3)).toBe(cells[5]);
    expect(stored.startSeed).toBe(EVALUATION_SEED);
    expect(stored.metrics['val/Bandit/success']?.toFixed(3)).toBe(cells[6]);
    expect(stored.numEpisodes).toBe(64);

    const command = printed.find((line) => line.startsWith('bandit-grpo-s1: node bin/turnlab.js'))!;
    const args = command.replace('bandit-grpo-s1: node ', '').split(' ');
    expect(args).toEqual(expect.arrayContaining(['--episodes', '64', '--seed', String(EVALUATION_SEED)]));
    const replay = spawnSync(process.execPath, [...args, '--json'], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
    expect(replay.status, replay.stderr).toBe(0);
    const again = JSON.parse(replay.stdout) as { metrics: Record<string, number>; episodes: number };
    expect(again.episodes).toBe(64);
    expect(meanFigure(again.metrics, 'success')).toBe(cells[6]);
    for (const [name, value] of Object.entries(stored.metrics)) if (value !== null) expect(again.metrics[name], name).toBeCloseTo(value, 9);
  }, 300_000);
});
