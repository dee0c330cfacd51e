// `turnlab sweep --executor slurm` on a real one-node Slurm cluster (scripts/slurm-local.sh):
// the sweep's runs train as tasks of one sbatch --array into bundles and come home row for row;
// importing again adds nothing, a truncated bundle is refused; a task cancelled with scancel
// resumes as a new job from its checkpoint and the run holds every iteration once, as does a
// requeued task's; a task requeued after it ended shows pending while it waits. The sweeps and the watched resume run as real `turnlab` processes; the listings
// polled while a task trains, the imports and the cancel through its entry point in this process
// (a process a poll cost ~0.6 s of CPU). The four tests that cancel, signal or requeue a task run
// side by side (it.concurrent): most of each is waiting on Slurm, and together they also check
// that watches and listings of one data folder in several processes import each task once.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunRows } from '../helpers/run-rows';
import { hasSlurm, startSlurm, stopSlurm } from '../helpers/slurm-cluster';
import { repoRoot as repo, runTurnlab, runTurnlabAsync, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';
import { until } from '../helpers/until';

const root = mkdtempSync(join(tmpdir(), 'turnlab-slurm-'));
const home = join(root, 'home');
const shared = join(root, 'shared');
const turnlab = (...args: string[]) => runTurnlab(args, { dataDir: home });
const turnlabAsync = (...args: string[]) => runTurnlabAsync(args, { dataDir: home });
const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir: home });
const tiny = [...TINY_TRAIN, '--set', 'trainer.test_freq=1', '--set', 'trainer.save_freq=1'];

const pollBefore = process.env.TURNLAB_JOB_POLL_MS;
beforeAll(() => {
  if (!hasSlurm) return;
  process.env.TURNLAB_JOB_POLL_MS = '300';
  startSlurm();
});
afterAll(() => {
  // Test files share their worker's environment (vitest.config.ts).
  if (pollBefore === undefined) delete process.env.TURNLAB_JOB_POLL_MS;
  else process.env.TURNLAB_JOB_POLL_MS = pollBefore;
  if (hasSlurm) stopSlurm();
  rmSync(root, { recursive: true, force: true });
});

interface Job {
  id: number;
  name: string;
  seedGroup: string;
  jobId: string;
  state: string;
  lastIteration: number | null;
  runId: number | null;
  bundleDir: string;
}
interface Run {
  id: number;
  name: string;
  status: string;
  tags: string[];
  iterations: number;
}
const jobs = async () => JSON.parse((await inProcess('jobs', '--json')).stdout) as Job[];
const runs = async () => JSON.parse((await inProcess('runs', '--json')).stdout) as Run[];
const count = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

/** A one-seed sweep of 30 iterations sent with --detach, once its task has trained 2 of them. */
async function trainingTask(name: string): Promise<Job> {
  const submitted = await turnlabAsync(
    'sweep', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--set', 'trainer.total_training_steps=30',
    '--name', name, '--seeds', '1', '--executor', 'slurm', '--remote-dir', shared, '--detach',
  );
  expect(submitted.code).toBe(0);
  return until('the task to train 2 iterations', async () => (await jobs()).find((j) => j.name === `${name}-s0` && (j.lastIteration ?? 0) >= 2), 120_000);
}

describe.skipIf(!hasSlurm)('turnlab sweep --executor slurm on a one-node cluster', () => {
  it('trains 2 settings x 3 seeds as one array job and brings all 6 runs home, grouped, row for row', async () => {
    const sweep = turnlab(
      'sweep', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--set', 'trainer.total_training_steps=2',
      '--grid', 'actor_rollout_ref.actor.optim.lr=1e-3,3e-4', '--seeds', '0,1,2', '--executor', 'slurm', '--remote-dir', shared,
    );
    const name = /sweep (bandit-\S+): 6 runs in 2 seed groups \(bandit-lr=1e-3, bandit-lr=3e-4\), sbatch array job \d+/.exec(sweep.stderr)?.[1];
    expect(name, sweep.stderr).toBeDefined();
    expect(sweep.code).toBe(0);
    const script = readFileSync(join(shared, readdirSync(shared)[0], 'sweep.sbatch'), 'utf8');
    expect(script).toMatch(/#SBATCH --array=0-5\n/);
    // The sweep ends with its settings side by side, each over its three imported seeds.
    expect(sweep.stdout).toMatch(/sweep bandit-\S+: final validation success by setting, best first\n/);
    for (const lr of ['1e-3', '3e-4']) expect(sweep.stdout).toMatch(new RegExp(`│ ${lr} +│ 3 +│ [01]\\.\\d{3} ± [01]\\.\\d{3} +│ [01]\\.\\d{3} +│ bandit-lr=${lr} +│`));

    const all = await jobs();
    expect(all.map((j) => j.state)).toEqual(Array(6).fill('completed'));
    const local = await runs();
    expect(local).toHaveLength(6);
    expect(local.map((r) => [r.name, r.status, r.tags]).sort()).toEqual(
      ['1e-3', '3e-4'].flatMap((lr) => [0, 1, 2].map((s) => [`bandit-lr=${lr}-s${s}`, 'completed', [`seeds:bandit-lr=${lr}`, `sweep:${name}`]])),
    );
    for (const job of all) {
      expect(job.runId).not.toBeNull();
      // The task recorded where it ran in its bundle's manifest.
      expect(JSON.parse(readFileSync(join(job.bundleDir, 'turnlab-bundle.json'), 'utf8'))).toMatchObject({ host: hostname(), jobId: job.jobId, name: job.name });
      const bundle = readRunRows(join(job.bundleDir, 'turnlab.sqlite'), 1);
      expect(bundle.episodes.length * bundle.turns.length * bundle.metrics.length).toBeGreaterThan(0);
      expect(readRunRows(join(home, 'turnlab.sqlite'), job.runId!)).toEqual(bundle);
    }
    expect((await inProcess('runs')).stdout).toMatch(/cluster jobs[\s\S]*bandit-lr=3e-4-s2 .*completed/);
  }, 240_000);

  it('adds nothing when the bundles are imported again, and refuses a truncated one naming the file', async () => {
    const bundles = (await jobs()).map((j) => j.bundleDir);
    const before = count(join(home, 'turnlab.sqlite'), 'SELECT (SELECT count(*) FROM runs) * 1000000 + (SELECT count(*) FROM turns) AS n');
    const again = await inProcess('import', ...bundles);
    expect(again.code).toBe(0);
    expect(again.stdout.match(/unchanged/g)).toHaveLength(6);
    expect(count(join(home, 'turnlab.sqlite'), 'SELECT (SELECT count(*) FROM runs) * 1000000 + (SELECT count(*) FROM turns) AS n')).toBe(before);

    // A copy as a colleague might send it (another bundle), beside one whose SQLite file was cut short.
    const copy = join(root, 'copy');
    cpSync(bundles[0], copy, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(copy, 'turnlab-bundle.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(copy, 'turnlab-bundle.json'), JSON.stringify({ ...manifest, bundleId: 'copy-of-a-bundle' }));
    const cut = join(root, 'cut');
    cpSync(bundles[1], cut, { recursive: true });
    truncateSync(join(cut, 'turnlab.sqlite'), 8192);
    const refused = await inProcess('import', copy, cut);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^turnlab: ${join(cut, 'turnlab.sqlite')} is damaged or truncated`));
    expect(count(join(home, 'turnlab.sqlite'), 'SELECT (SELECT count(*) FROM runs) * 1000000 + (SELECT count(*) FROM turns) AS n')).toBe(before);
  }, 60_000);

  it.concurrent('shows a task cancelled mid-run as cancelled at its last iteration, and resumes it as a new job from its checkpoint', async () => {
    const first = await trainingTask('long');
    expect(first.state).toBe('running');
    const cancelled = await inProcess('cancel-job', 'long-s0');
    expect(cancelled.stdout).toMatch(/long-s0: job \d+_0 cancelled/);
    const ended = await until('the cancelled task to be imported', async () => (await jobs()).find((j) => j.name === 'long-s0' && j.runId !== null), 60_000);
    expect(ended.state).toBe('cancelled');
    expect(ended.lastIteration).toBeGreaterThanOrEqual(2);
    expect(ended.lastIteration).toBeLessThan(30);
    expect((await inProcess('runs')).stdout).toMatch(new RegExp(`long-s0 .*│ cancelled +│ - +│ ${ended.lastIteration} `));
    const stopped = (await runs()).find((r) => r.id === ended.runId)!;
    expect([stopped.status, stopped.iterations]).toEqual(['stopped', ended.lastIteration]);

    const resumed = await turnlabAsync('resume-job', 'long-s0', '--watch');
    expect(resumed.stderr).toMatch(/long-s0: resumed as job \d+ \(attempt 2\)/);
    expect(resumed.code).toBe(0);
    const done = (await jobs()).find((j) => j.name === 'long-s0')!;
    expect([done.state, done.lastIteration, done.runId, done.jobId]).toEqual(['completed', 30, ended.runId, expect.stringMatching(/^\d+$/)]);
    const file = join(home, 'turnlab.sqlite');
    // Every iteration once: each of 1..30 has its metrics and its 32 training episodes, no more.
    expect(count(file, `SELECT count(DISTINCT iteration) AS n FROM metrics WHERE run_id = ${done.runId} AND iteration >= 1`)).toBe(30);
    const perIteration = new Database(file, { readonly: true })
      .prepare(`SELECT iteration, count(*) AS n FROM episodes WHERE run_id = ? AND split = 'train' GROUP BY iteration`)
      .all(done.runId) as Array<{ iteration: number; n: number }>;
    expect(perIteration.map((r) => r.iteration)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(perIteration.map((r) => r.n))).toEqual(new Set([32]));
    expect(readRunRows(file, done.runId!)).toEqual(readRunRows(join(done.bundleDir, 'turnlab.sqlite'), 1));
    expect((await runs()).filter((r) => r.name === 'long-s0')).toHaveLength(1);
  }, 300_000);

  it.concurrent('shows a task whose trainer got SIGTERM without a cancel (it exits 0, Slurm says COMPLETED) as cancelled, and resumes it', async () => {
    const running = await trainingTask('signalled');
    // What a preemption warning (#SBATCH --signal=TERM@60) or an admin's signal does: the batch
    // step, the exec'd trainer, gets SIGTERM and the job is not cancelled.
    const signalled = spawnSync('scancel', ['--batch', '--signal=TERM', running.jobId], { encoding: 'utf8' });
    expect(signalled.status, signalled.stderr).toBe(0);
    const ended = await until('the signalled task to be imported', async () => ((await jobs()) as Array<Job & { reason: string }>).find((j) => j.name === 'signalled-s0' && j.runId !== null), 60_000);
    expect(ended.state).toBe('cancelled');
    expect(ended.reason).toBe(`its trainer was stopped (SIGTERM) at iteration ${ended.lastIteration} before the end; turnlab resume-job continues it`);
    // Resources of its own (a task that timed out wants a longer --time): a bad one is refused before anything changes.
    const badTime = await inProcess('resume-job', 'signalled-s0', '--time', '90 minutes');
    expect([badTime.code, badTime.stderr]).toEqual([2, "turnlab: time limit '90 minutes' is not one sbatch reads: minutes (90), hours:minutes:seconds (01:30:00) or days-hours:minutes (1-12:00)\n"]);
    expect(readRunRows(join(ended.bundleDir, 'turnlab.sqlite'), 1).run).toMatchObject({ status: 'stopped' });
    const resumed = await turnlabAsync('resume-job', 'signalled-s0', '--watch', '--time', '00:10:00', '--sbatch=--comment=longer');
    expect(resumed.stderr).toMatch(/signalled-s0: resumed as job \d+ \(attempt 2\)/);
    expect(resumed.code).toBe(0);
    const done = (await jobs()).find((j) => j.name === 'signalled-s0')! as Job & { resources: object };
    expect([done.state, done.resources]).toEqual(['completed', { time: '00:10:00', extra: ['--comment=longer'] }]);
    expect(readFileSync(join(done.bundleDir, 'resume-2.sbatch'), 'utf8')).toContain('#SBATCH --time=00:10:00\n#SBATCH --cpus-per-task=1\n#SBATCH --comment=longer\n');
  }, 300_000);

  it.concurrent('continues a requeued task (scontrol requeue, as preemption does) in its run from its checkpoint: one run, every iteration once, both attempts in its output', async () => {
    const running = await trainingTask('requeued');
    const requeued = spawnSync('scontrol', ['requeue', running.jobId], { encoding: 'utf8' });
    expect(requeued.status, requeued.stderr).toBe(0);
    const done = await until('the requeued task to end and be imported', async () => (await jobs()).find((j) => j.name === 'requeued-s0' && j.state === 'completed' && j.runId !== null), 120_000);
    expect([done.jobId, done.lastIteration]).toEqual([running.jobId, 30]);
    const bundle = join(done.bundleDir, 'turnlab.sqlite');
    expect(count(bundle, 'SELECT count(*) AS n FROM runs')).toBe(1);
    expect(count(bundle, `SELECT count(*) AS n FROM (SELECT iteration FROM episodes WHERE split = 'train' GROUP BY iteration HAVING count(*) = 32)`)).toBe(30);
    expect(count(bundle, `SELECT count(*) AS n FROM episodes WHERE split = 'train'`)).toBe(30 * 32);
    const output = readFileSync(join(done.bundleDir, '..', `slurm-${done.jobId}.out`), 'utf8');
    expect(output).toMatch(/DUE TO JOB REQUEUE[\s\S]*run 1 \(requeued-s0\) stopped at iteration \d+[\s\S]*continuing run 1 \(requeued-s0\) from its latest checkpoint[\s\S]*run 1 \(requeued-s0\) completed at iteration 30/);
    expect((await runs()).filter((r) => r.name === 'requeued-s0').map((r) => [r.status, r.iterations])).toEqual([['completed', 30]]);
  }, 240_000);

  it.concurrent('follows a task requeued after it was seen cancelled and imported, and imports the run it goes on to complete', async () => {
    await trainingTask('requeued-late');
    await inProcess('cancel-job', 'requeued-late-s0');
    const cancelled = await until('the cancelled task to be imported', async () => (await jobs()).find((j) => j.name === 'requeued-late-s0' && j.runId !== null), 60_000);
    expect(cancelled.state).toBe('cancelled');
    // Seen ending 20 minutes ago, past the time a task seen ending is still asked about: only
    // its new attempt's writes to its bundle and output bring it back.
    const seenAt = Date.now() - 20 * 60_000;
    const db = new Database(join(home, 'turnlab.sqlite'));
    db.prepare('UPDATE cluster_jobs SET updated_at = ? WHERE id = ?').run(seenAt, cancelled.id);
    db.close();
    for (const file of [join(cancelled.bundleDir, 'turnlab.sqlite'), join(cancelled.bundleDir, '..', `slurm-${cancelled.jobId}.out`)]) utimesSync(file, new Date(seenAt - 60_000), new Date(seenAt - 60_000));
    const requeued = spawnSync('scontrol', ['requeue', cancelled.jobId], { encoding: 'utf8' });
    expect(requeued.status, requeued.stderr).toBe(0);
    const done = await until('the requeued task to end and be imported again', async () => (await jobs()).find((j) => j.name === 'requeued-late-s0' && j.state === 'completed' && j.runId !== null), 120_000);
    expect([done.jobId, done.lastIteration, done.runId]).toEqual([cancelled.jobId, 30, cancelled.runId]);
    expect((await runs()).filter((r) => r.name === 'requeued-late-s0').map((r) => [r.id, r.status, r.iterations])).toEqual([[cancelled.runId, 'completed', 30]]);

    // Requeued (and held) just after it was seen completing: it waits in the queue, and says so.
    expect(spawnSync('scontrol', ['requeuehold', done.jobId], { encoding: 'utf8' }).status).toBe(0);
    const waiting = await until('the requeued task to show pending', async () => (await jobs()).find((j) => j.name === 'requeued-late-s0' && j.state === 'pending'), 30_000);
    expect(waiting.runId).toBe(done.runId);
    expect(spawnSync('scontrol', ['release', done.jobId.split('_')[0]], { encoding: 'utf8' }).status).toBe(0);
    const again = await until('the released task to complete again', async () => (await jobs()).find((j) => j.name === 'requeued-late-s0' && j.state === 'completed'), 120_000);
    expect([again.lastIteration, again.runId]).toEqual([30, done.runId]);
    expect((await runs()).filter((r) => r.name === 'requeued-late-s0').map((r) => [r.id, r.status, r.iterations])).toEqual([[cancelled.runId, 'completed', 30]]);
  }, 300_000);

  it('shows a held task pending with the reason, and a task that fails on the node failed with turnlab\'s own words', async () => {
    // The config is read again on the node: a copy that is gone by the time the task runs.
    const config = join(root, 'gone.yaml');
    cpSync(join(repo, 'configs/bandit.yaml'), config);
    const held = turnlab('sweep', '--config', config, ...tiny, '--name', 'held', '--seeds', '0,1', '--executor', 'slurm', '--remote-dir', shared, '--sbatch=--hold', '--detach');
    expect(held.code).toBe(0);
    const pending = (await jobs()).find((j) => j.name === 'held-s0')!;
    expect([pending.state, (pending as Job & { reason: string }).reason]).toEqual(['pending', 'JobHeldUser']);
    // A held array task scancel takes leaves scontrol's listing at once: cancelled, not "lost before it trained".
    expect((await inProcess('cancel-job', 'held-s1')).stdout).toMatch(/^held-s1: job \d+_1 cancelled\n$/);
    expect(((await jobs()) as Array<Job & { reason: string }>).find((j) => j.name === 'held-s1')!.reason).toBe('cancelled before it started');
    rmSync(config);
    const released = spawnSync('scontrol', ['release', pending.jobId.split('_')[0]], { encoding: 'utf8' });
    expect(released.status).toBe(0);
    const failed = await until('the task to fail', async () => ((await jobs()) as Array<Job & { reason: string }>).find((j) => j.name === 'held-s0' && j.state === 'failed'), 60_000);
    expect(failed.reason).toBe(`${config}: cannot read the config: file not found`);
    expect(failed.runId).toBeNull();
    expect((await inProcess('runs')).stdout).toMatch(/held-s0 .*│ failed +│ .*cannot read the config/);
    // It will never be imported: `sweeps` says so, not "no task imported yet".
    expect((await inProcess('sweeps')).stdout).toMatch(/held-\S+ .*│ its 2 tasks ended without a run \(1 failed, 1 cancelled; turnlab jobs says why\) │/);

    // A task that never reached turnlab (a wrong --turnlab) said Slurm's exit code alone: it says where its output is.
    const wrong = turnlab('sweep', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--name', 'wrong', '--seeds', '1', '--executor', 'slurm', '--remote-dir', shared, '--turnlab', '/bin/false', '--detach');
    expect(wrong.code).toBe(0);
    const noTurnlab = await until('the task to fail', async () => ((await jobs()) as Array<Job & { reason: string }>).find((j) => j.name === 'wrong-s0' && j.state === 'failed'), 60_000);
    expect(noTurnlab.reason).toBe(`NonZeroExitCode, exit code 1:0; its output: ${join(noTurnlab.bundleDir, '..', `slurm-${noTurnlab.jobId}.out`)}`);
  }, 120_000);
});
