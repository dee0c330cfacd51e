// Managing runs from a terminal (main/cli/manage.ts): `turnlab stop` ends a run another process
// trains here as Ctrl-C would (its iteration, a checkpoint, `stopped`), and so does the
// workbench's Stop on a run it did not start; `delete`, `tag`, `rename` and `note` do what the
// Runs view's buttons do. The stop is refused, with nothing signalled, for a run on another host
// or a pid that now belongs to another process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { RunAdminError } from '../../main/services/run-admin';
import { processStartedAt, stopTrainingProcess } from '../../main/services/stop-run';
import { openStore, type Store } from '../../main/store/db';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { repoRoot, runTurnlabInProcess } from '../helpers/turnlab-cli';
import { until } from '../helpers/until';

describe('turnlab stop, and Stop on a run another process trains', () => {
  let tmp: TempDir;
  let store: Store;
  let trainer: ChildProcess | null = null;

  beforeAll(() => {
    tmp = makeTempDir('turnlab-stop-');
    store = openStore(tmp.dir, { create: true });
  });

  afterAll(() => {
    if (trainer && trainer.exitCode === null) trainer.kill('SIGKILL');
    store?.close();
    tmp?.cleanup();
  });

  /** `turnlab <args>` as its own process, training into the test's folder; resolves with its exit code and output. */
  function startTrainer(args: string[]): { child: ChildProcess; ended: Promise<{ code: number | null; stdout: string }> } {
    const sets = [...TINY_LAKE_OVERRIDES, 'warm_start.steps=5', 'trainer.total_training_steps=500', 'trainer.save_freq=50', 'trainer.test_freq=0'].flatMap((s) => ['--set', s]);
    const child = spawn(process.execPath, [join(repoRoot, 'bin/turnlab.js'), '--data-dir', tmp.dir, ...args, ...sets], { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'ignore'] });
    trainer = child;
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    return { child, ended: new Promise((done) => child.on('exit', (code) => done({ code, stdout }))) };
  }

  function turnlab(...args: string[]) {
    const result = spawnSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), '--data-dir', tmp.dir, ...args], { cwd: tmpdir(), encoding: 'utf8', timeout: 120_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('stops a run trained in a terminal after its iteration, with a checkpoint there, from the API and from the CLI', async () => {
    // The workbench's Stop, on a run its own run manager did not start.
    const first = startTrainer(['train', '--config', join(repoRoot, 'configs/frozenlake-nonslip.yaml'), '--name', 'terminal']);
    await until('two iterations', () => ((store.runs.summary(1)?.iterations ?? 0) >= 2 ? true : undefined));
    await createApi(store, { version: 'test' }).stopRun(1);
    expect(['stopping', 'stopped']).toContain(store.runs.get(1)!.status);
    const stopped = await first.ended;
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(/^run 1 \(terminal\) stopped at iteration (\d+)/m);
    const at = Number(/stopped at iteration (\d+)/.exec(stopped.stdout)![1]);
    expect(at).toBeLessThan(500);
    expect(store.runs.get(1)!.status).toBe('stopped');
    expect(store.checkpoints.latest(1)?.iteration).toBe(at);

    // `turnlab stop --wait` on the same run resumed in another process, chosen by a condition
    // that also matches a run that does not train (it is left alone).
    const ended = store.runs.create({ name: 'ended', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    store.runs.update(ended.id, { status: 'running' });
    const second = startTrainer(['resume', '1']);
    await until('two more iterations', () => ((store.runs.summary(1)?.iterations ?? 0) >= at + 2 ? true : undefined));
    const stop = turnlab('stop', '--where', 'status=running', '--wait');
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(`run 1 (terminal): asked process ${second.child.pid} to stop it after its iteration (a checkpoint is saved)\nrun 1 (terminal) stopped\n`);
    const again = await second.ended;
    expect(again.code).toBe(0);
    const last = Number(/stopped at iteration (\d+)/.exec(again.stdout)![1]);
    expect(store.checkpoints.latest(1)?.iteration).toBe(last);

    const nothing = turnlab('stop', '1');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toBe('turnlab: run 1 (terminal) is not training (it is stopped); nothing to stop\n');
    store.runs.update(ended.id, { status: 'completed' });
    const none = turnlab('stop', '--where', 'status=completed');
    expect(none.stderr).toBe('turnlab: none of the 1 run(s) matching --where is training; nothing to stop\n');
    store.runs.delete(ended.id);
  }, 180_000);

  it('refuses, signalling nothing, a run on another host, a reused pid, and does not signal a run already stopping twice', () => {
    const run = store.runs.create({ name: 'elsewhere', config: {}, seed: 0, envTags: ['Bandit'], algorithm: 'grpo' });
    const started = Date.now() - 60_000;
    const own = (pid: number, host: string, status: 'running' | 'stopping' = 'running') => {
      store.runs.setTrainerProcess(run.id, pid, host, started);
      store.runs.update(run.id, { status });
    };
    const signals: Array<[number, string]> = [];
    const kill = (pid: number, signal: string) => void signals.push([pid, signal]);
    // A pid alive here (this test's own parent), as a trainer's would be.
    const alive = process.ppid;

    own(alive, 'far-host');
    store.runs.heartbeat(run.id, alive, 'far-host', Date.now());
    expect(() => stopTrainingProcess(store, run.id, { host: 'this-host', kill })).toThrow(
      `run ${run.id} (elsewhere) trains on host far-host (process ${alive}), not on this one (this-host); run \`turnlab stop ${run.id}\` there, or \`turnlab cancel-job\` for a cluster task`,
    );

    own(alive, 'this-host');
    expect(() => stopTrainingProcess(store, run.id, { host: 'this-host', kill, startedAt: () => started + 3_600_000 })).toThrow(/that pid now belongs to a process started at .*, after the run was taken; nothing was signalled/);
    expect(signals).toEqual([]);
    expect(store.runs.get(run.id)!.status).toBe('running');

    expect(stopTrainingProcess(store, run.id, { host: 'this-host', kill, startedAt: () => started - 1000 })).toEqual({ runId: run.id, name: 'elsewhere', pid: alive, signalled: true });
    expect(signals).toEqual([[alive, 'SIGTERM']]);
    expect(store.runs.get(run.id)!.status).toBe('stopping');
    // A second signal would abort the trainer: a run already stopping is left to stop.
    expect(stopTrainingProcess(store, run.id, { host: 'this-host', kill, startedAt: () => started })).toMatchObject({ signalled: false });
    expect(signals).toHaveLength(1);

    expect(() => stopTrainingProcess(store, 999, { kill })).toThrow(RunAdminError);
  });

  it('reads when a process started from /proc', () => {
    const now = Date.now();
    const self = processStartedAt(process.pid);
    if (!existsSync('/proc/self/stat')) return expect(self).toBeNull();
    expect(self).toBeGreaterThan(now - process.uptime() * 1000 - 2_000);
    expect(self).toBeLessThanOrEqual(now);
    expect(processStartedAt(2 ** 22 + 1)).toBeNull();
  });
});

describe('turnlab delete, tag, rename and note', () => {
  let fixture: FixtureDataDir;
  const turnlab = (args: string[]) => runTurnlabInProcess(args, { dataDir: fixture.dir });

  beforeAll(() => {
    fixture = makeFixtureDataDir({ iterations: 2 });
  });

  afterAll(() => fixture?.cleanup());

  const stored = () => {
    const store = openStore(fixture.dir);
    try {
      return store.runs.list().sort((a, b) => a.id - b.id);
    } finally {
      store.close();
    }
  };

  it('lists what it would delete and deletes nothing without --yes; deletes what --where selects with it', async () => {
    const [completed, failed] = fixture.runs.map((r) => r.run);
    const dry = await turnlab(['delete', '--where', 'status=failed']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toBe(`turnlab: would delete 1 run(s): ${failed.id} (${failed.name}, failed); nothing was deleted: add --yes to delete them for good\n`);
    expect(stored()).toHaveLength(3);

    const done = await turnlab(['delete', '--where', 'status=failed', '--yes']);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(`deleted run ${failed.id} (${failed.name})\n`);
    expect(stored().map((run) => run.id)).not.toContain(failed.id);
    expect(stored().map((run) => run.id)).toContain(completed.id);

    const none = await turnlab(['delete']);
    expect(none.stderr).toBe("turnlab: name the runs to delete (ids or names, see 'turnlab runs') or select them with --where\n");
    expect((await turnlab(['delete', '--where', 'lr=1', '--yes'])).stderr).toMatch(/^turnlab: --where: no run has the config key 'lr' \(did you mean .*\)\n$/);
    expect(stored()).toHaveLength(2);
    // The fixture's third run is a fork of its first.
    const fork = fixture.runs[2].run;
    expect((await turnlab(['delete', String(completed.id)])).stderr).toBe(
      `turnlab: would delete 1 run(s): ${completed.id} (${completed.name}, completed); run ${fork.id} (${fork.name}) forked from them keeps only its own iterations; nothing was deleted: add --yes to delete them for good\n`,
    );
  });

  it('adds and removes tags, renames and annotates a run', async () => {
    const run = fixture.runs[0].run;
    const before = stored().find((r) => r.id === run.id)!.tags;
    expect(before).toEqual(['baseline', 'paper-repro']);
    const tagged = await turnlab(['tag', String(run.id), '--add', 'baseline', ' lr sweep ', '--remove', 'paper-repro']);
    expect(tagged.code).toBe(0);
    const tags = stored().find((r) => r.id === run.id)!.tags;
    expect(tags).toEqual(['baseline', 'lr sweep']);
    // One tag both added and removed is a slip, not an order.
    expect((await turnlab(['tag', String(run.id), '--add', 'x', '--remove', 'x'])).stderr).toBe("turnlab: 'x' is both added and removed: give it once, to add or to remove\n");
    expect(tagged.stdout).toBe(`run ${run.id} (${run.name}): ${tags.join(', ')}\n`);
    expect((await turnlab(['tag', String(run.id)])).stderr).toBe('turnlab: tag: say what to change with --add TAG and/or --remove TAG\n');
    // A tag that holds a comma is quoted, so it reads back as one tag.
    const comma = await turnlab(['tag', String(run.id), '--add', 'a,b']);
    expect(comma.stdout).toBe(`run ${run.id} (${run.name}): baseline, lr sweep, "a,b"\n`);
    expect((await turnlab(['show', String(run.id)])).stdout).toContain('\ntags: baseline, lr sweep, "a,b"\n');
    await turnlab(['tag', String(run.id), '--remove', 'a,b']);

    expect((await turnlab(['rename', String(run.id), 'baseline-a'])).stdout).toBe(`run ${run.id} renamed from ${run.name} to baseline-a\n`);
    expect((await turnlab(['rename', 'baseline-a', ' '])).stderr).toBe('turnlab: a run name cannot be empty\n');
    // A name commands would read as an id or a checkpoint could never address the run.
    expect((await turnlab(['rename', 'baseline-a', '7'])).stderr).toBe("turnlab: a run name cannot be '7': commands would read it as a run id; add a word (run-7)\n");
    expect((await turnlab(['rename', 'baseline-a', 'ckpt:2'])).stderr).toBe("turnlab: a run name cannot be 'ckpt:2': commands would read it as a checkpoint; add a word (run-2)\n");
    expect((await turnlab(['rename', 'baseline-a', 'a\nb'])).stderr).toBe('turnlab: a run name is one line of text: no line breaks, tabs or control characters\n');
    expect((await turnlab(['rename', 'baseline-a', '--', '-x'])).stderr).toBe("turnlab: a run name cannot start with '-': commands would read it as an option; drop the dash (x)\n");
    // The workbench's limits hold on the command line too, and a refused edit changes nothing.
    expect((await turnlab(['rename', 'baseline-a', 'n'.repeat(201)])).stderr).toBe('turnlab: a run name holds at most 200 characters (this one has 201)\n');
    expect((await turnlab(['tag', 'baseline-a', '--add', 't'.repeat(101)])).stderr).toBe(`turnlab: tags to add: each of the tags holds at most 100 characters ('${'t'.repeat(20)}...' has 101)\n`);
    // The preview never cuts an emoji in half.
    expect((await turnlab(['tag', 'baseline-a', '--add', `a${'🧊'.repeat(60)}`])).stderr).toBe(`turnlab: tags to add: each of the tags holds at most 100 characters ('a${'🧊'.repeat(19)}...' has 121)\n`);
    expect((await turnlab(['tag', 'baseline-a', '--add', ...Array.from({ length: 50 }, (_, i) => `t${i}`)])).stderr).toMatch(new RegExp(`^turnlab: run ${run.id} \\(baseline-a\\): a run holds at most 50 tags \\(this would make 5\\d\\)\n$`));
    expect(stored().find((r) => r.id === run.id)!.tags).toEqual(tags);
    expect((await turnlab(['note', 'baseline-a', 'the rate was too high'])).code).toBe(0);
    const edited = stored().find((r) => r.id === run.id)!;
    expect(edited).toMatchObject({ name: 'baseline-a', notes: 'the rate was too high' });
    const listed = JSON.parse((await turnlab(['runs', '--where', 'tag=baseline', '--json'])).stdout) as Array<{ id: number }>;
    expect(listed.map((r) => r.id)).toEqual([run.id]);

    // Runs a condition selects, as `delete --where` does; names and a condition together are refused.
    const matched = stored().filter((r) => r.algorithm === 'grpo');
    const byWhere = await turnlab(['tag', '--where', 'algorithm=grpo', '--add', 'grpo-runs']);
    expect(byWhere.stdout.trimEnd().split('\n')).toHaveLength(matched.length);
    expect(stored().filter((r) => r.tags.includes('grpo-runs')).map((r) => r.id)).toEqual(matched.map((r) => r.id));
    expect((await turnlab(['tag', String(run.id), '--where', 'algorithm=grpo', '--add', 'x'])).stderr).toBe('turnlab: name runs or select them with --where, not both\n');
    // A tag removed that no run has (a typo) does not read as a success.
    const typo = await turnlab(['tag', '--where', 'algorithm=grpo', '--remove', 'grpo-rnus']);
    expect(typo.stdout.trimEnd().split('\n').at(-1)).toBe(`${matched.length} of ${matched.length} run(s) unchanged: they did not have the tags removed`);
    expect((await turnlab(['tag', String(run.id), '--add', ' '])).stderr).toBe('turnlab: say which tag to add or remove: an empty tag is no tag\n');
  });
});
