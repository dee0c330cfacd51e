// A resume under another trainer.total_training_steps re-spreads a cosine or warmup schedule, so
// the resumed run is not the one that total trains from the start: said as it resumes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { scheduleTotalNote } from '../../trainer-core/compute';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-resume-schedule-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const bandit = (overrides: string[]) => loadRunConfig(join(repoRoot, 'configs/bandit.yaml'), ['trainer.total_training_steps=6', ...overrides]);

describe('resuming under another total', () => {
  it('names the seam of a schedule that spans the total, and stays quiet where the rates are the same', () => {
    const cosine = scheduleTotalNote(bandit(['actor_rollout_ref.actor.optim.lr_scheduler_type=cosine']), 3, 3);
    expect(cosine).toContain('actor_rollout_ref.actor.optim: cosine');
    expect(cosine).toContain('iterations 1-3 trained under 3, iterations 4-6 under 6 (actor/lr 7.50e-5 at 3, then 1.50e-4 at 4)');
    expect(cosine).toContain('train with that total from the start');
    expect(scheduleTotalNote(bandit(['actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.5']), 3, 3)).toContain('constant after a warmup');
    // A warmup that ended before the checkpoint under both totals, a constant rate, the same total.
    expect(scheduleTotalNote(bandit(['actor_rollout_ref.actor.optim.lr_warmup_steps_ratio=0.2']), 5, 3)).toBeNull();
    expect(scheduleTotalNote(bandit([]), 3, 3)).toBeNull();
    expect(scheduleTotalNote(bandit(['actor_rollout_ref.actor.optim.lr_scheduler_type=cosine']), 6, 3)).toBeNull();
    // A critic's schedule counts where the estimator trains one.
    const gae = bandit(['algorithm.adv_estimator=gae', 'critic.optim.lr_scheduler_type=cosine']);
    expect(scheduleTotalNote(gae, 3, 3)).toContain('critic.optim: cosine');
  });

  it('says it in the resume\'s log', async () => {
    const cosine = [...TINY_TRAIN, '--set', 'actor_rollout_ref.actor.optim.lr_scheduler_type=cosine', '--set', 'trainer.test_freq=0'];
    expect((await runTurnlabInProcess(['train', '--config', 'bandit', ...cosine, '--set', 'trainer.total_training_steps=2'], { dataDir })).code).toBe(0);
    const resumed = await runTurnlabInProcess(['resume', '1', '--set', 'trainer.total_training_steps=3'], { dataDir });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr + resumed.stdout).toMatch(/note: the learning rate's schedule \(actor_rollout_ref\.actor\.optim: cosine\) spans trainer\.total_training_steps: iterations 1-2 trained under 2, iteration 3 under 3/);
  }, 120_000);
});
