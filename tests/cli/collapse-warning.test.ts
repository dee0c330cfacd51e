import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-collapse-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('turnlab train on a collapsing run', () => {
  // A constructed collapse on real training: Bandit seed 1 at the learning rate that made it
  // lose the answer format from iteration 2 (1e-3; the shipped config uses 3e-4).
  it('prints one warning naming the metric, its fall and what to try, and records rollout/collapse', () => {
    const run = spawnSync(
      process.execPath,
      [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'train', '--config', join(repo, 'configs/bandit.yaml'),
        '--set', 'trainer.backend=wasm', '--set', 'trainer.seed=1', '--set', 'actor_rollout_ref.actor.optim.lr=1e-3',
        '--set', 'trainer.total_training_steps=6', '--set', 'trainer.test_freq=0', '--set', 'trainer.save_freq=0'],
      { cwd: tmpdir(), encoding: 'utf8', timeout: 300_000 },
    );
    expect(run.status).toBe(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('warning: collapse'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/rollout\/well_formed_share is 0\.\d\d, down from (0\.9\d|1\.00)/);
    expect(warnings[0]).toMatch(/lower actor lr/);
    const show = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'show', '1', '--json'], { cwd: tmpdir(), encoding: 'utf8' });
    const latest = (JSON.parse(show.stdout) as { latestMetrics: { name: string; value: number }[] }).latestMetrics;
    expect(latest.find((m) => m.name === 'rollout/collapse')?.value).toBe(1);
  }, 300_000);
});
