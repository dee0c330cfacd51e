import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadRunConfig } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { MemorySink } from '../../trainer-core/train/sink';
import { train } from '../../trainer-core/train/trainer';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, tinyBanditConfig, withoutTimings } from './helpers';

const tmp = tempDir('warm-start-resume');
afterAll(() => tmp.cleanup());
const LAKE = join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml');

/** Trains `cfg` into `dir`, asking to stop once the warm start has reported step `stopAt`. */
async function run(cfg: RunConfig, dir: string, options: { stopAt?: number; resumeFrom?: string } = {}) {
  const sink = new MemorySink();
  const lines: string[] = [];
  const shouldStop = () => options.stopAt !== undefined && sink.warmStartReports.some((r) => r.step === options.stopAt);
  const result = await train({ config: cfg, sink, checkpointDir: join(tmp.dir, dir), resumeFrom: options.resumeFrom, shouldStop, log: (line) => lines.push(line) });
  return { sink, result, lines };
}

const policyBytes = (dir: string) => readFileSync(join(dir, 'policy.safetensors'));
const finished = (sink: MemorySink) => sink.checkpoints.filter((c) => c.warmStartStep === undefined);

/**
 * A warm start stopped at a step and resumed from its checkpoint against one never stopped: the
 * same losses, and after RL's first iteration the same weights, byte for byte.
 */
async function expectResumesExactly(cfg: RunConfig, name: string, stopAt: number, savedSteps: number[]) {
  const straight = await run(cfg, `${name}-straight`);
  expect(straight.result.status).toBe('completed');

  const stopped = await run(cfg, `${name}-split`, { stopAt });
  expect(stopped.result.status).toBe('stopped');
  expect(stopped.lines.join('\n')).toMatch(new RegExp(`stopped during the warm start, after step ${stopAt} of \\d+; the warm start's checkpoint at step ${stopAt} is saved: resume the run \\(turnlab resume <run>, or Resume in the workbench\\)`));
  expect(stopped.sink.checkpoints.map((c) => c.warmStartStep)).toEqual(savedSteps);
  expect(stopped.sink.checkpoints.every((c) => c.iteration === 0)).toBe(true);
  // Only the latest is kept.
  expect(readdirSync(join(tmp.dir, `${name}-split`))).toEqual([`warm-start-${stopAt}`]);

  const resumed = await run(cfg, `${name}-split`, { resumeFrom: stopped.sink.checkpoints.at(-1)!.path });
  expect(resumed.result.status).toBe('completed');
  expect(resumed.lines).toContain(`warm start: resuming at step ${stopAt}/${cfg.warm_start.steps}`);
  expect(resumed.sink.warmStart).toEqual(straight.sink.warmStart);
  expect(resumed.sink.warmStart).toHaveLength(cfg.warm_start.steps);
  const last = cfg.trainer.total_training_steps;
  expect(withoutTimings(resumed.sink.metrics.get(last)!)).toEqual(withoutTimings(straight.sink.metrics.get(last)!));
  expect(policyBytes(finished(resumed.sink).at(-1)!.path).equals(policyBytes(finished(straight.sink).at(-1)!.path))).toBe(true);
  // The finished checkpoint superseded the warm start's.
  expect(readdirSync(join(tmp.dir, `${name}-split`)).sort()).toEqual(finished(resumed.sink).map((c) => `iter-${c.iteration}`));
  return { straight, resumed };
}

describe('a warm start that resumes (warm_start.save_freq)', () => {
  it('stopped mid-way and resumed, ends with the weights and losses of one never stopped', async () => {
    const cfg = tinyBanditConfig(['warm_start.steps=6', 'warm_start.save_freq=2', 'warm_start.lr_scheduler_type=cosine', 'trainer.total_training_steps=1', 'trainer.test_freq=1', 'warm_start.save_checkpoint=true']);
    const { straight, resumed } = await expectResumesExactly(cfg, 'bandit', 3, [2, 3]);
    // Never taken for the iter-0 policy: the run that went on keeps its own iter-0, validated as the uninterrupted one's.
    expect(straight.sink.checkpoints.map((c) => [c.iteration, c.warmStartStep])).toEqual([[0, 2], [0, 4], [0, 6], [0, undefined], [1, undefined]]);
    expect(finished(resumed.sink).map((c) => c.iteration)).toEqual([0, 1]);
    expect(withoutTimings(resumed.sink.metrics.get(0)!)).toEqual(withoutTimings(straight.sink.metrics.get(0)!));
  });

  it('resumes exactly on two threads too (the same worker count)', async () => {
    const cfg = tinyBanditConfig(['warm_start.steps=4', 'warm_start.save_freq=2', 'trainer.total_training_steps=1', 'trainer.test_freq=0', 'trainer.workers=2']);
    await expectResumesExactly(cfg, 'workers', 2, [2]);
  });

  it('keeps what DAgger added to the demonstrations and its sampling stream', async () => {
    const cfg = loadRunConfig(LAKE, [
      ...TINY_LAKE_OVERRIDES,
      'warm_start.mode=expert',
      'warm_start.steps=6',
      'warm_start.save_freq=2',
      'warm_start.dagger_rounds=1',
      'warm_start.dagger_episodes=4',
      'trainer.total_training_steps=1',
      'trainer.test_freq=0',
    ]);
    // DAgger's round comes before step 4: the checkpoint at 4 holds its demonstrations.
    await expectResumesExactly(cfg, 'dagger', 4, [2, 4]);
  });

  it("keeps a pretrained policy's LoRA adapter, not its untouched critic, and resumes both exactly", async () => {
    const modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 6 });
    const cfg = loadRunConfig(LAKE, [
      ...TINY_LAKE_OVERRIDES,
      `actor_rollout_ref.model.path=${modelDir}`,
      'actor_rollout_ref.model.lora_rank=4',
      'actor_rollout_ref.model.lora_alpha=8',
      'algorithm.adv_estimator=gae',
      'warm_start.steps=4',
      'warm_start.save_freq=2',
      'warm_start.batch_size=2',
      'warm_start.save_checkpoint=true',
      'trainer.total_training_steps=0',
      'trainer.val_before_train=false',
    ]);
    const straight = await run(cfg, 'lora-straight');
    const stopped = await run(cfg, 'lora-split', { stopAt: 3 });
    const saved = stopped.sink.checkpoints.at(-1)!;
    expect(saved.warmStartStep).toBe(3);
    // The adapter in PEFT's layout too, as every checkpoint of a LoRA run has it.
    expect(readdirSync(saved.path)).toContain('adapter_model.safetensors');
    // The warm start trains the policy alone: the critic's adapters and value head are still
    // their seeded start, which the resume builds again.
    expect(readdirSync(saved.path)).not.toContain('critic.safetensors');
    const resumed = await run(cfg, 'lora-split', { resumeFrom: saved.path });
    expect(resumed.sink.warmStart).toEqual(straight.sink.warmStart);
    const [after, before] = [finished(resumed.sink)[0].path, finished(straight.sink)[0].path];
    expect(policyBytes(after).equals(policyBytes(before))).toBe(true);
    expect(readFileSync(join(after, 'critic.safetensors')).equals(readFileSync(join(before, 'critic.safetensors')))).toBe(true);
  }, 120_000);

  it('with save_freq 0 saves nothing, and says to start again', async () => {
    const cfg = tinyBanditConfig(['warm_start.steps=6', 'warm_start.save_freq=0', 'trainer.total_training_steps=1']);
    const stopped = await run(cfg, 'off', { stopAt: 3 });
    expect(stopped.result.status).toBe('stopped');
    expect(stopped.sink.checkpoints).toEqual([]);
    expect(existsSync(join(tmp.dir, 'off'))).toBe(false);
    expect(stopped.lines.join('\n')).toMatch(/stopped during the warm start, after step 3 of 6; no checkpoint is saved \(warm_start\.save_freq is 0, or it stopped before its first step\), so start the run again/);
  });

  it('refuses a bad save_freq, and a resume under another warm start, naming the key', async () => {
    for (const bad of ['-1', '2.5', 'often']) {
      expect(() => tinyBanditConfig([`warm_start.save_freq=${bad}`])).toThrow(ConfigError);
      expect(() => tinyBanditConfig([`warm_start.save_freq=${bad}`])).toThrow(/warm_start\.save_freq/);
    }
    const cfg = tinyBanditConfig(['warm_start.steps=4', 'warm_start.save_freq=2', 'trainer.total_training_steps=1']);
    const stopped = await run(cfg, 'other', { stopAt: 2 });
    // Nor is it a policy to start another run from.
    const fromIt = tinyBanditConfig(['warm_start.steps=0', 'trainer.total_training_steps=1', `model.path=${stopped.sink.checkpoints[0].path}`]);
    await expect(run(fromIt, 'from-it')).rejects.toThrow(/`model\.path` names .*warm-start-2, a warm-start checkpoint saved at step 2 of 4 of its run's warm start: no finished policy to start from/);
    const longer = tinyBanditConfig(['warm_start.steps=8', 'warm_start.save_freq=2', 'trainer.total_training_steps=1']);
    await expect(run(longer, 'other', { resumeFrom: stopped.sink.checkpoints[0].path })).rejects.toThrow(
      /`warm_start\.steps` is 8, but checkpoint .*warm-start-2 holds a warm start stopped at step 2 of 4; resume it with the warm start it was saved in/,
    );
  });
});
