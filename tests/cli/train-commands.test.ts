import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const repo = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-train-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function turnlab(...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same through main() in this process: for what a command says, where no process of its own matters. */
const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir });

const tiny = [...TINY_TRAIN, '--set', 'trainer.test_freq=2', '--set', 'trainer.save_freq=2'];

describe('turnlab train, resume and eval', () => {
  it('trains a run into the data folder, resumes it, forks it and evaluates it', async () => {
    const trained = turnlab('train', '--config', join(repo, 'configs/bandit.yaml'), '--name', 'cli-bandit', ...tiny, '--set', 'trainer.total_training_steps=2');
    expect(trained.stderr).toMatch(/backend: wasm/);
    expect(trained.stderr).toMatch(/iteration 2\/2/);
    expect(trained.code).toBe(0);
    expect(trained.stdout).toMatch(/run 1 \(cli-bandit\) completed at iteration 2/);
    expect(existsSync(join(dataDir, 'checkpoints/run-1/iter-2/policy.safetensors'))).toBe(true);

    const resumed = turnlab('resume', 'cli-bandit', '--set', 'trainer.total_training_steps=3');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/run 1 \(cli-bandit\) completed at iteration 3/);

    const forked = turnlab('resume', 'ckpt:1', '--fork', '--name', 'child', '--set', 'actor_rollout_ref.actor.optim.lr=0.002', '--set', 'trainer.total_training_steps=3');
    expect(forked.code).toBe(0);
    expect(forked.stdout).toMatch(/run 2 \(child\) completed at iteration 3/);
    // The checkpoint is checked before a backend is chosen, without making tensors on tfjs's
    // default cpu backend (whose first tensor prints tfjs's "install our node backend" banner).
    for (const output of [resumed, forked]) expect(output.stderr + output.stdout).not.toMatch(/running TensorFlow\.js in Node\.js/);

    const runs = JSON.parse((await inProcess('runs', '--json')).stdout) as Array<{ id: number; iterations: number; parentRunId: number | null; parentIteration: number | null; backend: string }>;
    expect(runs.map((r) => [r.id, r.iterations, r.parentRunId, r.parentIteration])).toEqual([
      [1, 3, null, null],
      [2, 3, 1, 2],
    ]);
    expect(runs[0].backend).toBe('wasm');

    const evaluated = turnlab('eval', '1', '--episodes', '4', '--json');
    expect(evaluated.code).toBe(0);
    const report = JSON.parse(evaluated.stdout) as { episodes: number; metrics: Record<string, number> };
    expect(report.episodes).toBe(4);
    expect(report.metrics).toHaveProperty('val/Bandit/success');

    // The evaluation's episodes export alone, its run given; not another run's, nor as metrics.
    const evalEpisodes = await inProcess('export', '1', '--evaluation', '1', '--what', 'episodes', '--format', 'jsonl');
    expect(evalEpisodes.code, evalEpisodes.stderr).toBe(0);
    // Each says its evaluation, so beside the run's own validation episodes of that iteration they stay apart.
    const played = evalEpisodes.stdout.trim().split('\n').map((line) => JSON.parse(line) as { run_id: number; split: string; evaluation_id: number | null });
    expect(played.map((e) => [e.run_id, e.split, e.evaluation_id])).toEqual([[1, 'val', 1], [1, 'val', 1], [1, 'val', 1], [1, 'val', 1]]);
    const ownEpisodes = (await inProcess('export', '1', '--what', 'episodes', '--format', 'jsonl')).stdout.trim().split('\n');
    expect(ownEpisodes.length).toBeGreaterThan(4);
    expect(new Set(ownEpisodes.map((line) => (JSON.parse(line) as { evaluation_id: number | null }).evaluation_id))).toEqual(new Set([null]));
    expect((await inProcess('export', '2', '--evaluation', '1', '--what', 'turns')).stderr).toBe('turnlab: evaluation 1 is of run 1: give that run alone with --evaluation 1\n');
    expect((await inProcess('export', '1', '--evaluation', '1')).stderr).toBe('turnlab: an evaluation\'s export is of its episodes or turns (--what episodes or --what turns), not metrics\n');
    expect((await inProcess('export', '1', '--evaluation', '9', '--what', 'turns')).stderr).toBe("turnlab: no evaluation 9 (turnlab show <run> lists a run's evaluations by id)\n");

    const greedy = await inProcess('eval', '1', '--episodes', '4', '--json', '--set', 'actor_rollout_ref.rollout.val_kwargs.do_sample=false');
    expect(greedy.code).toBe(0);
    expect(JSON.parse(greedy.stdout)).toMatchObject({ episodes: 4 });
    // Beside the run's own validation at that iteration (test_freq 2), with how far two samples fall apart.
    const beside = await inProcess('eval', 'ckpt:1', '--episodes', '4');
    expect(beside.stdout).toMatch(/\nthe run's own val\/Bandit\/success at iteration 2: [\d.]+ over \d+ episodes; this evaluation played its own 4 episodes, so the two differ by sampling, about ± 0\.\d{3} \(one standard error of the difference\)\n$/);
    // --greedy is the validation's do_sample=false, and the note says the setting differs too.
    const greedyBeside = await inProcess('eval', 'ckpt:1', '--episodes', '4', '--greedy');
    expect(greedyBeside.stdout).toMatch(/played its own 4 episodes under actor_rollout_ref\.rollout\.val_kwargs\.do_sample=false, so the two differ by those settings and by sampling, about ± 0\.\d{3}/);
    const misspelt = await inProcess('eval', '1', '--set', 'actor_rollout_ref.rollout.val_kwargs.do_sampling=false');
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/do_sampling.*did you mean.*do_sample/);

    // The checkpoints by the ids resume and eval take; an earlier one resumed in place would
    // delete the later one, so that is asked for by name.
    const shown = await inProcess('show', '1');
    expect(shown.stdout).toMatch(/checkpoints:\n[^]*│ ckpt:1 +│ 2 +│[^\n]*│ checkpoints\/run-1\/iter-2 +│/);
    const shownJson = JSON.parse((await inProcess('show', '1', '--json')).stdout) as {
      checkpoints: Array<{ id: number; iteration: number }>;
      evaluations: Array<{ id: number; checkpointId: number; iteration: number; overrides: string[] }>;
    };
    expect(shownJson.checkpoints.map((c) => [c.id, c.iteration])).toEqual([[1, 2], [2, 3]]);
    // The evaluations by the ids export --evaluation takes, each with its checkpoint and overrides (not the config it repeats).
    expect(shownJson.evaluations.map((e) => [e.id, e.checkpointId, e.iteration, e.overrides.length]).sort((a, b) => a[0] - b[0])).toEqual([
      [1, 2, 3, 0],
      [2, 2, 3, 1],
      [3, 1, 2, 0],
      [4, 1, 2, 1],
    ]);
    expect(shownJson.evaluations[0]).not.toHaveProperty('config');
    expect(shown.stdout).toMatch(/\nevaluations:\n[^]*│ 2 +│ ckpt:2 +│ 3 +│[^\n│]*│ 4 +│ [\d.]+ +│ actor_rollout_ref\.rollout\.val_kwargs\.do_sample=false +│/);
    const inPlace = await inProcess('resume', 'ckpt:1', 'trainer.total_training_steps=4');
    expect(inPlace.code).toBe(2);
    expect(inPlace.stderr).toMatch(/ckpt:1 is checkpoint 1 at iteration 2 of run 1; .*deletes what it recorded after iteration 2, with its later checkpoints ckpt:2 \(iteration 3\)\. Pass --discard-later .* or --fork/);
    expect(existsSync(join(dataDir, 'checkpoints/run-1/iter-3'))).toBe(true);
    const missing = await inProcess('eval', '/nonexistent/iter-2');
    expect(missing.stderr).toMatch(/^turnlab: no folder \/nonexistent\/iter-2 \(a checkpoint is named by its folder, ckpt:<id> from 'turnlab show <run>', or a run id or name for its latest\)\n$/);
    const renaming = await inProcess('resume', '1', '--name', 'other');
    expect(renaming.code).toBe(2);
    expect(renaming.stderr).toMatch(/--name names the child run of --fork; to rename run 1 itself: turnlab rename 1 "other"/);
    const discarded = await inProcess('resume', 'ckpt:1', '--discard-later', 'trainer.total_training_steps=3');
    expect(discarded.code).toBe(0);
    expect(existsSync(join(dataDir, 'checkpoints/run-1/iter-3'))).toBe(true);
    const checkpoints = JSON.parse((await inProcess('show', '1', '--json')).stdout).checkpoints as Array<{ id: number; iteration: number }>;
    expect(checkpoints.map((c) => c.iteration)).toEqual([2, 3]);
    // A damaged latest checkpoint is not the end of the run: the refusal names the one before it.
    const policy = join(dataDir, 'checkpoints/run-1/iter-3/policy.safetensors');
    truncateSync(policy, Math.floor(statSync(policy).size / 2));
    const damaged = await inProcess('resume', '1', 'trainer.total_training_steps=4');
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toMatch(new RegExp(`truncated.*; the run's checkpoint before it, at iteration 2, may be sound: turnlab resume ckpt:${checkpoints[0].id} --discard-later \\(or --fork\\) continues from there\\n$`));
  });

  it('says when the update diverges (NaN weights) instead of ending completed without a word', async () => {
    const diverged = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--name', 'diverged', '--set', 'actor_rollout_ref.actor.optim.lr=1e308', '--set', 'trainer.total_training_steps=2');
    expect(diverged.code).toBe(0);
    const warnings = diverged.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: iteration \d+: actor\/\S+ is (NaN|-?Infinity): the update diverged .* lower actor_rollout_ref.actor.optim.lr \(now 1e\+308\)/);
  });

  it('refuses a bad config key with the closest valid one, and unknown runs, with exit code 2', async () => {
    const bad = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), '--set', 'agent_proxy.max_turns=3');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/max_turns.*did you mean.*max_turn/);
    const unknown = await inProcess('resume', 'no-such-run');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('stops gracefully on SIGTERM (how the app stops a trainer): checkpoint saved, run stopped', async () => {
    const { code, stdout } = await trainUntilSignal('sigterm', ['--set', 'trainer.total_training_steps=50', '--set', 'trainer.save_freq=0'], /iteration 1\/50/);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\(sigterm\) stopped at iteration \d+/);
    const runs = JSON.parse((await inProcess('runs', '--json')).stdout) as Array<{ id: number; name: string; status: string; iterations: number }>;
    const run = runs.find((r) => r.name === 'sigterm')!;
    expect(run.status).toBe('stopped');
    expect(existsSync(join(dataDir, `checkpoints/run-${run.id}/iter-${run.iterations}`))).toBe(true);
  });

  it('stops on Ctrl-C during a long warm start, instead of finishing it first, and exits 130 so `train && eval` goes no further', async () => {
    // warm_start.save_freq 0: no warm-start checkpoint, as before they were kept.
    const { code, stdout, stderr } = await trainUntilSignal('warm-stop', ['--set', 'warm_start.steps=1000000', '--set', 'warm_start.save_freq=0'], /run \d+ \(warm-stop\)/, 'SIGINT');
    expect(code).toBe(130);
    expect(stderr).toMatch(/stopped during the warm start, after step \d+ of 1000000; no checkpoint is saved/);
    expect(stdout).toMatch(/\(warm-stop\) stopped at iteration 0/);
    const runs = JSON.parse((await inProcess('runs', '--json')).stdout) as Array<{ id: number; name: string; status: string }>;
    const run = runs.find((r) => r.name === 'warm-stop')!;
    expect(run.status).toBe('stopped');
    expect(existsSync(join(dataDir, `checkpoints/run-${run.id}`))).toBe(false);
  });

  it('saves a warm-start checkpoint on Ctrl-C, lists it for what it is, refuses to evaluate or fork it, and resumes the warm start from it', async () => {
    const warm = ['--set', 'warm_start.steps=40', '--set', 'warm_start.save_freq=4', '--set', 'warm_start.batch_size=4', '--set', 'trainer.total_training_steps=1'];
    const stopped = await trainUntilSignal('warm-resume', warm, /warm start: step 8\/40/, 'SIGINT');
    expect(stopped.code).toBe(130);
    const said = /the warm start's checkpoint at step (\d+) is saved: resume the run \(turnlab resume (\d+), or Resume in the workbench\)/.exec(stopped.stderr);
    const step = Number(said?.[1]);
    expect(step).toBeGreaterThanOrEqual(8);
    const runs = JSON.parse((await inProcess('runs', '--json')).stdout) as Array<{ id: number; name: string; status: string }>;
    const run = runs.find((r) => r.name === 'warm-resume')!;
    expect(run.status).toBe('stopped');
    expect(Number(said?.[2])).toBe(run.id);
    const shown = await inProcess('show', String(run.id));
    expect(shown.stdout).toMatch(new RegExp(`ckpt:\\d+ +│ warm start, step ${step} \\(resumes the run\\)`));
    const evaluated = await inProcess('eval', String(run.id));
    expect(evaluated.code).toBe(2);
    expect(evaluated.stderr).toMatch(new RegExp(`is a warm-start checkpoint, saved at step ${step} of its warm start \\(warm_start.save_freq\\): no finished policy to evaluate; it only resumes its run \\(turnlab resume ${run.id}\\)`));
    const forked = await inProcess('resume', String(run.id), '--fork');
    expect(forked.code).toBe(2);
    expect(forked.stderr).toMatch(/no finished policy to fork from/);

    const resumed = turnlab('resume', String(run.id));
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`resuming from ckpt:\\d+, the warm start's step ${step} of 40`));
    expect(resumed.stderr).toMatch(new RegExp(`warm start: resuming at step ${step}/40`));
    const after = JSON.parse((await inProcess('show', String(run.id), '--json')).stdout) as { run: { status: string }; checkpoints: Array<{ iteration: number; warmStartStep: number | null }> };
    expect(after.run.status).toBe('completed');
    // The finished checkpoint superseded the warm start's, row and folder.
    expect(after.checkpoints.map((c) => [c.iteration, c.warmStartStep])).toEqual([[1, null]]);
    expect(existsSync(join(dataDir, `checkpoints/run-${run.id}/warm-start-${step}`))).toBe(false);
    // The whole loss curve, once: the steps before the stop and after it.
    const losses = (await inProcess('export', String(run.id), '--format', 'jsonl')).stdout.split('\n').filter((line) => line.includes('"warm_start/loss"'));
    expect(losses).toHaveLength(40);
  });
});

/** Trains the tiny bandit as run `name`, sends `signal` once stderr matches `when`, and waits for the exit. */
async function trainUntilSignal(name: string, args: string[], when: RegExp, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'train', '--config', join(repo, 'configs/bandit.yaml'), '--name', name, ...tiny, ...args], {
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolveExit) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (when.test(stderr) && !child.killed) child.kill(signal);
    });
    child.on('close', (exitCode) => resolveExit(exitCode));
  });
  return { code, stdout, stderr };
}
