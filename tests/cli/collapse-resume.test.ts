import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initialCollapseState, stepCollapse } from '../../trainer-core/train/collapse';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-collapse-resume-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A run's stored values of one metric, by iteration. */
async function series(name: string): Promise<Map<number, number>> {
  const out = await runTurnlabInProcess(['export', '1', '--format', 'jsonl'], { dataDir });
  expect(out.code).toBe(0);
  const rows = out.stdout.trim().split('\n').map((line) => JSON.parse(line) as { name: string; iteration: number; value: number });
  return new Map(rows.filter((r) => r.name === name).map((r) => [r.iteration, r.value]));
}

describe('a collapsed run resumed', () => {
  // Bandit seed 1 at lr 1e-3 loses the answer format from iteration 2 (collapse-warning.test.ts);
  // stopped at 4 and resumed to 6, it must record what the run would have without the stop.
  it('records the rollout/collapse the detector gives over the whole run, and does not warn again', async () => {
    const common = ['--set', 'trainer.backend=wasm', '--set', 'trainer.seed=1', '--set', 'actor_rollout_ref.actor.optim.lr=1e-3', '--set', 'trainer.test_freq=0', '--set', 'trainer.save_freq=2'];
    const first = await runTurnlabInProcess(['train', '--config', 'bandit', ...common, '--set', 'trainer.total_training_steps=4'], { dataDir });
    expect(first.code).toBe(0);
    const resumed = await runTurnlabInProcess(['resume', '1', '--set', 'trainer.total_training_steps=6'], { dataDir });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr + resumed.stdout).not.toContain('warning: collapse');

    const shares = await series('rollout/well_formed_share');
    const recorded = await series('rollout/collapse');
    let state = initialCollapseState();
    const expected: number[] = [];
    for (let iteration = 1; iteration <= 6; iteration++) {
      const step = stepCollapse(state, shares.get(iteration)!);
      state = step.state;
      expected.push(step.collapsed ? 1 : 0);
    }
    // The case this is about: a collapse that goes on past the resume.
    expect(expected.slice(4)).toContain(1);
    expect([1, 2, 3, 4, 5, 6].map((i) => recorded.get(i))).toEqual(expected);
  }, 300_000);
});
