// `turnlab show <run> --follow`: a run trained by another process watched from a terminal, a line
// per iteration and its log lines, until it ends; a failed run ends the command non-zero, and
// stopping the follower leaves the run alone.
import { spawn } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followRun } from '../../main/cli/follow-run';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

let tmp: TempDir;
let store: Store;
const follow = (...args: string[]) => runTurnlabInProcess(['show', ...args, '--follow'], { dataDir: tmp.dir });

/** A run as a trainer leaves it: its config, `iterations` of metrics, a log line. */
function storedRun(name: string, status: 'completed' | 'failed' | 'running', iterations: number, error?: string): number {
  const run = store.runs.create({ name, config: { trainer: { total_training_steps: 5 } }, seed: 0, envTags: ['bandit'], algorithm: 'grpo', status });
  if (error) store.runs.update(run.id, { error });
  store.logs.append(run.id, ['backend: wasm']);
  store.metrics.insert([
    { runId: run.id, name: 'warm_start/loss', iteration: 0, value: 0.5, wallTime: 1 },
    ...Array.from({ length: iterations }, (_, i) => [
      { runId: run.id, name: 'train/bandit/success', iteration: i + 1, value: (i + 1) / 10, wallTime: 1 },
      { runId: run.id, name: 'train/bandit/reward', iteration: i + 1, value: 1, wallTime: 1 },
    ]).flat(),
  ]);
  return run.id;
}

describe('turnlab show --follow', () => {
  beforeAll(() => {
    tmp = makeTempDir('turnlab-follow-');
    store = openStore(tmp.dir, { create: true });
  });
  afterAll(() => {
    store?.close();
    tmp?.cleanup();
  });

  it('prints an ended run from its latest iteration and its end, at once', async () => {
    const id = storedRun('done', 'completed', 3);
    const shown = await follow('done');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(
      [
        `following run ${id} (done); Ctrl-C stops following, not the run`,
        '[log] backend: wasm',
        'iteration 3/5 success 0.30 reward 1.000 val - tok/s 0',
        `run ${id} completed`,
        '',
      ].join('\n'),
    );
  });

  it('ends non-zero on a failed run, naming its error; refuses --follow with --json', async () => {
    const id = storedRun('broke', 'failed', 1, 'out of memory');
    const shown = await follow(String(id));
    expect(shown.code).toBe(2);
    expect(shown.stdout).toMatch(new RegExp(`\\nrun ${id} failed: out of memory\\n$`));
    expect(shown.stderr).toBe(`turnlab: run ${id} failed\n`);
    const both = await follow(String(id), '--json');
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('turnlab: --follow prints lines as the run goes; leave out --json\n');
    expect((await follow('nope')).stderr).toMatch(/^turnlab: .*nope/);
  });

  it('follows a run that another process trains, each iteration once and in order, until it completes', async () => {
    const trainer = spawn(
      process.execPath,
      [join(repoRoot, 'bin/turnlab.js'), '--data-dir', tmp.dir, 'train', '--config', join(repoRoot, 'configs/bandit.yaml'), ...TINY_TRAIN, '--set', 'trainer.total_training_steps=6', '--set', 'trainer.test_freq=3', '--name', 'live'],
      { cwd: tmpdir(), stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((done) => trainer.on('exit', done));
    // Followed as soon as the run exists, before its first iteration on any machine but a fast one.
    await expect.poll(() => store.runs.progress().some((r) => r.name === 'live'), { timeout: 60_000, interval: 50 }).toBe(true);
    const shown = await follow('live');
    expect(await exited).toBe(0);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    const iterations = lines.flatMap((l) => /^iteration (\d+)\/6 /.exec(l)?.[1] ?? []).map(Number);
    expect(iterations.length).toBeGreaterThan(0);
    expect(iterations).toEqual(Array.from({ length: iterations.length }, (_, i) => 7 - iterations.length + i));
    // Validated at iteration 3 and 6: the line says so.
    expect(lines.find((l) => l.startsWith('iteration 6/6'))).toMatch(/ val [01]\.\d\d /);
    expect(lines.filter((l) => l.startsWith('[log] backend: wasm'))).toHaveLength(1);
    // The warm start (TINY's three steps) or the first iteration, whichever the first poll saw.
    expect(lines[1]).toMatch(/^status: (queued|warming up|running)$/);
    expect(lines.at(-1)).toMatch(/^run \d+ completed$/);
  }, 120_000);

  it('stops following when told, and the run goes on', async () => {
    const id = storedRun('going', 'running', 2);
    // This process stands in for the trainer, so the run is not taken for abandoned.
    store.runs.setTrainerProcess(id, process.pid, hostname());
    const lines: string[] = [];
    const stop = new AbortController();
    const following = followRun(store, id, { write: (line) => lines.push(line), pollMs: 20, signal: stop.signal });
    await expect.poll(() => lines.length).toBe(4);
    store.metrics.insert([{ runId: id, name: 'train/bandit/success', iteration: 3, value: 0.9, wallTime: 2 }]);
    await expect.poll(() => lines.at(-1)).toBe('iteration 3/5 success 0.90 reward - val - tok/s 0');
    stop.abort();
    expect(await following).toBeNull();
    expect(lines).toEqual([
      `following run ${id} (going); Ctrl-C stops following, not the run`,
      'status: running',
      '[log] backend: wasm',
      'iteration 2/5 success 0.20 reward 1.000 val - tok/s 0',
      'iteration 3/5 success 0.90 reward - val - tok/s 0',
    ]);
    expect(store.runs.get(id)!.status).toBe('running');
  });

  it('ends on a run whose trainer is gone, in a folder it may only read', async () => {
    const id = storedRun('orphan', 'running', 1);
    // A pid above Linux's largest (2^22) names no process.
    store.runs.setTrainerProcess(id, 4_194_400, hostname());
    const reader = openStore(tmp.dir, { readOnly: true });
    try {
      const lines: string[] = [];
      expect(await followRun(reader, id, { write: (line) => lines.push(line), pollMs: 20 })).toBe('interrupted');
      expect(lines.at(-1)).toBe(`run ${id} was left running and its trainer process 4194400 no longer exists`);
    } finally {
      reader.close();
    }
    // The reader wrote nothing; the next writer marks it.
    expect(store.runs.get(id)!.status).toBe('running');
  });

  it('says a run marked interrupted once, not "interrupted: interrupted:"', async () => {
    const id = storedRun('marked', 'running', 1);
    store.runs.update(id, { status: 'interrupted', error: 'interrupted: the run was left running and its trainer is gone; resume it from its last checkpoint' });
    const lines: string[] = [];
    expect(await followRun(store, id, { write: (line) => lines.push(line), pollMs: 20 })).toBe('interrupted');
    expect(lines.at(-1)).toBe(`run ${id} interrupted: the run was left running and its trainer is gone; resume it from its last checkpoint`);
  });
});
