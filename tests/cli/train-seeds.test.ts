// `turnlab train --seeds`: a group of runs differing only by trainer.seed, queued as child
// trainers, tagged as one group, with each run's progress and a summary table printed; stopped
// whole by Ctrl-C there or, from any other process, by `turnlab stop --group`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { openStore } from '../../main/store/db';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-seeds-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const turnlab = (...args: string[]) => runTurnlab(args, { dataDir });
/** Listings and refusals through main() in this process; the trainings run as real processes. */
const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir });

const tiny = [...TINY_TRAIN, '--set', 'trainer.test_freq=1', '--set', 'trainer.save_freq=1', '--set', 'trainer.total_training_steps=1'];

interface RunRow {
  id: number;
  name: string;
  seed: number;
  status: string;
  tags: string[];
  iterations: number;
}

/**
 * `turnlab train --seeds` with one run at a time as its own process, 50 iterations a run;
 * `training` resolves once seed 0 has logged its first iteration.
 */
function spawnGroup(name: string, seeds: number) {
  const child = spawn(
    process.execPath,
    [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'train', '--config', join(repo, 'configs/bandit.yaml'), '--name', name, '--seeds', String(seeds), '--concurrency', '1', ...TINY_TRAIN, '--set', 'trainer.total_training_steps=50'],
    { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('close', (exitCode) => resolveExit(exitCode)));
  const training = new Promise<void>((resolveTraining) =>
    child.stderr.on('data', (chunk: Buffer) => {
      out.stderr += chunk.toString();
      if (/\[seed 0 run \d+\] iteration 1\/50/.test(out.stderr)) resolveTraining();
    }),
  );
  return { child, out, exited, training };
}

describe('turnlab train --seeds', () => {
  it('trains one run per seed, tagged as one group, and prints progress and a summary', async () => {
    const trained = turnlab('train', '--config', join(repo, 'configs/bandit.yaml'), '--name', 'grp', '--seeds', '2', '--concurrency', '2', ...tiny);
    expect(trained.stderr).toMatch(/seed group grp: 2 runs \(seeds 0, 1\), 2 at a time/);
    expect(trained.stderr).toMatch(/\[seed 0 run \d+\] iteration 1\/1 /);
    expect(trained.stderr).toMatch(/\[seed 1 run \d+\] iteration 1\/1 /);
    expect(trained.code).toBe(0);

    const runs = (JSON.parse((await inProcess('runs', '--json')).stdout) as RunRow[]).sort((a, b) => a.seed - b.seed);
    expect(runs.map((r) => [r.name, r.seed, r.status, r.tags])).toEqual([
      ['grp-s0', 0, 'completed', ['seeds:grp']],
      ['grp-s1', 1, 'completed', ['seeds:grp']],
    ]);

    const lines = trained.stdout.split('\n');
    expect(lines[0]).toBe('seed group grp');
    expect(trained.stdout).toMatch(/seed.*run.*status.*final val success.*wall time/);
    for (const run of runs) {
      const row = lines.find((l) => l.includes(`${run.id} (${run.name})`));
      expect(row).toMatch(new RegExp(`^│ ${run.seed} +│ ${run.id} \\(${run.name}\\) +│ completed +│ (0|1)\\.\\d{3} +│ \\d+ (s|min)`));
    }
  });

  it("evaluates the group's latest checkpoints on the same episodes: each run's success with its error, then their mean ± std", async () => {
    const evaluated = await inProcess('eval', '--where', 'tag=seeds:grp', '--episodes', '4');
    expect(evaluated.code).toBe(0);
    expect(evaluated.stderr).toMatch(/^run \d+ \(grp-s0\), checkpoint \d+ \(iteration 1\): 4 episodes, stored as evaluation \d+$/m);
    expect(evaluated.stderr).toMatch(/^run \d+ \(grp-s1\), checkpoint \d+ \(iteration 1\): 4 episodes, stored as evaluation \d+$/m);
    const lines = evaluated.stdout.split('\n');
    expect(lines.find((l) => l.includes('run '))).toMatch(/│ run +│ seed +│ iteration +│ episodes +│ Bandit success +│/);
    expect(lines.find((l) => l.includes('(grp-s0)'))).toMatch(/│ \d+ \(grp-s0\) +│ 0 +│ 1 +│ 4 +│ [01]\.\d{3} ± 0\.\d{3} +│/);
    expect(lines.find((l) => l.includes('mean ± std'))).toMatch(/│ mean ± std of 2 runs +│ +│ +│ +│ [01]\.\d{3} ± 0\.\d{3} +│/);
    const json = JSON.parse((await inProcess('eval', '--where', 'tag=seeds:grp', '--episodes', '2', '--json')).stdout) as Array<{ name: string; episodes: number; metrics: Record<string, number> }>;
    // In the order of the run ids, which the two trainers started together took in either order.
    expect(json.map((r) => [r.name, r.episodes]).sort()).toEqual([['grp-s0', 2], ['grp-s1', 2]]);
    expect(json[0].metrics['val/Bandit/success']).toBeGreaterThanOrEqual(0);
    const both = await inProcess('eval', 'grp-s0', '--where', 'tag=seeds:grp');
    expect(both.stderr).toBe('turnlab: give a checkpoint (grp-s0) or --where, not both\n');
  }, 120_000);

  it('refuses a bad seed list and a bad config key before any run starts', async () => {
    const bad = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), '--seeds', '1,x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither a count of seeds/);
    const badKey = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), '--seeds', '2', '--set', 'agent_proxy.max_turns=3');
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/max_turns.*did you mean.*max_turn/);
    expect(JSON.parse((await inProcess('runs', '--json')).stdout)).toHaveLength(2);
  });

  it('on SIGTERM stops the running seed with a checkpoint and leaves the queued one unstarted', async () => {
    const group = spawnGroup('halt', 2);
    await group.training;
    group.child.kill('SIGTERM');
    const code = await group.exited;
    const { stdout, stderr } = group.out;
    expect(stderr).toMatch(/stopping the group/);
    expect(code).toBe(0);
    const runs = (JSON.parse((await inProcess('runs', '--json')).stdout) as RunRow[]).filter((r) => r.tags.includes('seeds:halt'));
    expect(runs.map((r) => [r.name, r.status])).toEqual([['halt-s0', 'stopped']]);
    expect(existsSync(join(dataDir, `checkpoints/run-${runs[0].id}/iter-${runs[0].iterations}`))).toBe(true);
    expect(stdout).toMatch(/│ 0 +│ \d+ \(halt-s0\) +│ stopped /);
    expect(stdout).toMatch(/│ 1 +│ - +│ not started /);
  }, 240_000);

  it('is stopped whole from another process: turnlab stop --group stops the running seed and leaves the queued ones unstarted', async () => {
    const group = spawnGroup('far', 3);
    await group.training;
    // The queue lives in the data folder: any process (the workbench, this one) sees the group's plan.
    const store = openStore(dataDir);
    try {
      expect((await createApi(store, { version: 'test' }).queuedSeedRuns()).filter((s) => s.group === 'far')).toEqual([
        { group: 'far', seed: 1, name: 'far-s1', cancelled: false },
        { group: 'far', seed: 2, name: 'far-s2', cancelled: false },
      ]);
    } finally {
      store.close();
    }

    expect((await inProcess('runs')).stdout).toMatch(/\nqueued, not started yet: far \(seeds 1, 2\); turnlab groups lists the groups, turnlab stop --group stops one\n$/);
    const groups = await inProcess('groups');
    expect(groups.stdout.split('\n').find((l) => l.includes('│ far '))).toMatch(/^│ far +│ 0, 1, 2 +│ 1 running, 2 queued +│ (-|\d+\.\d%) +│ \d+ +│$/);

    const stop = await inProcess('stop', '--group', 'far', '--wait');
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toMatch(/^seed group far: seeds 1, 2 will not start\nrun (\d+) \(far-s0\): asked process \d+ to stop it after its iteration \(a checkpoint is saved\)\nrun \1 \(far-s0\) stopped\n$/);
    expect(await group.exited).toBe(0);
    const { stdout, stderr } = group.out;
    expect(stderr).toMatch(/the group was stopped \(turnlab stop --group, or the workbench\): the seeds not yet started stay unstarted/);
    expect(stdout).toMatch(/│ 0 +│ \d+ \(far-s0\) +│ stopped /);
    expect(stdout).toMatch(/│ 1 +│ - +│ not started /);
    expect(stdout).toMatch(/│ 2 +│ - +│ not started /);
    // The group still lists the seeds it was asked for: the two the stop cancelled say so.
    const listed = JSON.parse((await inProcess('groups', '--json')).stdout) as Array<{ name: string; status: string; queued: unknown[] }>;
    expect(listed.find((g) => g.name === 'far')).toMatchObject({ seeds: [0, 1, 2], status: '1 stopped, 2 cancelled', queued: [], cancelled: [1, 2] });
    const runs = (JSON.parse((await inProcess('runs', '--json')).stdout) as RunRow[]).filter((r) => r.tags.includes('seeds:far'));
    expect(runs.map((r) => [r.name, r.status])).toEqual([['far-s0', 'stopped']]);

    // Nothing is left to stop, and the queue is empty again.
    const again = await inProcess('stop', '--group', 'far');
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('turnlab: seed group far has no seed queued and no run training; nothing to stop\n');
    const unknown = await inProcess('stop', '--group', 'nope');
    expect(unknown.stderr).toMatch(/^turnlab: no seed group named "nope": /);
    const reopened = openStore(dataDir);
    try {
      expect(reopened.seedQueue.waiting()).toEqual([]);
    } finally {
      reopened.close();
    }
  }, 240_000);
});

describe("the seed group's summary table", () => {
  it('gives a seed that never started no wall time of its own', async () => {
    const { summaryTable } = await import('../../main/cli/train-seeds');
    const table = summaryTable([
      { seed: 0, name: 'g-s0', runId: 7, status: 'stopped', finalValSuccess: 0.5, wallMs: 65_000, error: null },
      { seed: 1, name: 'g-s1', runId: null, status: 'not started', finalValSuccess: null, wallMs: 0, error: null },
    ]);
    const rows = table.split('\n').filter((line) => /^\W*\d\W/.test(line));
    expect(rows[0]).toMatch(/7 \(g-s0\).*stopped.*0\.500.*1 min 5 s/);
    expect(rows[1]).toMatch(/not started\W+-\W+-\W*$/);
  });
});
