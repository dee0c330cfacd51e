// The same seed gives the same run only on one backend and worker count: a resume that trains
// on others (as `auto` may on another machine) says so, with the settings that continue it as it was.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeChangeNote } from '../../main/services/compute-change-note';
import { runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-resume-compute-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a continuation on another backend or worker count', () => {
  it('names what changed and the settings that keep the run as it was', () => {
    expect(computeChangeNote({ backend: 'wasm', workers: 2 }, { backend: 'webgpu', workers: 1 }, 40)).toBe(
      'note: the iterations up to the checkpoint (40) and this process differ: it trains on the webgpu backend (they trained on wasm) and 1 worker (they had 2), ' +
        'and the same seed gives the same run only on one backend and worker count, so from iteration 41 this is not the run an uninterrupted one would have been; ' +
        'trainer.backend=wasm trainer.workers=2 continues it as it was',
    );
    expect(computeChangeNote({ backend: 'wasm', workers: 2 }, { backend: 'wasm', workers: 2 }, 40)).toBeNull();
    // A run stored before either was recorded has nothing to compare.
    expect(computeChangeNote({ backend: null, workers: null }, { backend: 'wasm', workers: 8 }, 3)).toBeNull();
  });

  it('is said by a resume whose backend differs, and not by one that keeps it', async () => {
    expect((await runTurnlabInProcess(['train', '--config', 'bandit', ...TINY_TRAIN, '--set', 'trainer.total_training_steps=2', '--set', 'trainer.test_freq=0'], { dataDir })).code).toBe(0);
    const same = await runTurnlabInProcess(['resume', '1', '--set', 'trainer.total_training_steps=3'], { dataDir });
    expect(same.code).toBe(0);
    expect(same.stderr + same.stdout).not.toContain('this process differ');
    const other = await runTurnlabInProcess(['resume', '1', '--set', 'trainer.total_training_steps=4', '--set', 'trainer.backend=cpu'], { dataDir });
    expect(other.code).toBe(0);
    expect(other.stderr + other.stdout).toContain('note: the iterations up to the checkpoint (3) and this process differ: it trains on the cpu backend (they trained on wasm)');
    expect(other.stderr + other.stdout).toContain('trainer.backend=wasm continues it as it was');
  }, 120_000);
});
