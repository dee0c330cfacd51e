// `turnlab runs`, `show` and `export` against a real data folder: through the real entry point in
// this process (runTurnlabInProcess), and --help, the runs table and the choice of data folder as a
// user runs them, the real command in a child process from a folder outside the repository.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const bin = fileURLToPath(new URL('../../bin/turnlab.js', import.meta.url));

let data: FixtureDataDir;
let scratch: TempDir;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command from a folder outside the repository, as an installed command would be. */
function spawned(args: string[], env: Record<string, string | undefined> = {}): Result {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: scratch.dir,
    encoding: 'utf8',
    env: { ...process.env, TURNLAB_DATA_DIR: data.dir, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same command through main() in this process, the data folder chosen the same way. */
const turnlab = (args: string[], env: Record<string, string | undefined> = {}): Promise<Result> => runTurnlabInProcess(args, { env: { TURNLAB_DATA_DIR: data.dir, ...env } });

function expectUserError(result: Result, message: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^turnlab: /);
  expect(lines[0]).toMatch(message);
}

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(() => {
  data = makeFixtureDataDir();
  scratch = makeTempDir();
});

afterAll(() => {
  data.cleanup();
  scratch.cleanup();
});

describe('turnlab --help', () => {
  it('lists the store commands', () => {
    const result = spawned(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['runs', 'show', 'export']) expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });
});

describe('turnlab runs', () => {
  it('prints a table of runs', () => {
    const result = spawned(['runs']);
    expect(result.code).toBe(0);
    const header = result.stdout.split('\n').find((line) => line.includes('status'))!;
    for (const column of ['id', 'name', 'status', 'env', 'algorithm', 'iterations', 'best val success', 'created']) {
      expect(header).toContain(column);
    }
    const row = result.stdout.split('\n').find((line) => line.includes('sokoban-ppo'))!;
    expect(row).toMatch(/│ 2\s+│ sokoban-ppo\s+│ failed\s+│ sokoban\s+│ ppo\s+│ 8\s+│ \d+\.\d%\s+│ 2025-01-0\d \d\d:\d\d/);
  });

  it('prints JSON with --json', async () => {
    const result = await turnlab(['runs', '--json']);
    expect(result.code).toBe(0);
    const runs = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(runs.map((r) => [r.id, r.name, r.status, r.iterations])).toEqual([
      [1, 'frozenlake-grpo', 'completed', 8],
      [2, 'sokoban-ppo', 'failed', 8],
      [3, 'frozenlake-grpo-fork', 'interrupted', 8],
    ]);
    expect(runs[0].bestValSuccess).toEqual(expect.any(Number));
    expect(runs[0].config).toEqual(data.runs[0].run.config);
  });

  it('adds config and metric columns and sorts by one, as the Runs view does', async () => {
    const json = await turnlab(['runs', '--columns', 'algorithm.adv_estimator,metric:train/reward/mean', '--sort', 'config:algorithm.adv_estimator', '--desc', '--json']);
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ id: number; columns: Record<string, unknown> }>;
    // ppo after grpo backwards, ties by id; each metric's last value is what the store holds.
    expect(rows.map((r) => [r.id, r.columns['algorithm.adv_estimator']])).toEqual([[2, 'ppo'], [1, 'grpo'], [3, 'grpo']]);
    for (const row of rows) {
      const last = (await turnlab(['show', String(row.id), '--json'])).stdout;
      const lastReward = (JSON.parse(last) as { latestMetrics: Array<{ name: string; value: number }> }).latestMetrics.find((m) => m.name === 'train/reward/mean');
      expect(row.columns['metric:train/reward/mean']).toBe(lastReward?.value);
      expect(typeof lastReward?.value).toBe('number');
    }
    // Each option takes the others' spellings: config:<key> in --columns, a bare key and snake_case in --sort.
    const spelt = await turnlab(['runs', '--columns', 'config:algorithm.adv_estimator', '--sort', 'algorithm.adv_estimator', '--desc', '--json']);
    expect((JSON.parse(spelt.stdout) as typeof rows).map((r) => [r.id, r.columns['algorithm.adv_estimator']])).toEqual([[2, 'ppo'], [1, 'grpo'], [3, 'grpo']]);
    expect((await turnlab(['runs', '--sort', 'best_val_success'])).code).toBe(0);
    // The run fields --where takes sort too: iterations, seed, created_at.
    const byIterations = JSON.parse((await turnlab(['runs', '--sort', 'iterations', '--desc', '--json'])).stdout) as Array<{ iterations: number | null }>;
    const done = byIterations.map((r) => r.iterations).filter((n) => n !== null);
    expect(done).toEqual([...done].sort((a, b) => b - a));
    expect((await turnlab(['runs', '--sort', 'seed'])).code).toBe(0);
    expect((await turnlab(['runs', '--sort', 'created_at'])).code).toBe(0);
    const table = await turnlab(['runs', '--columns', 'algorithm.adv_estimator']);
    expect(table.stdout.split('\n')[1]).toMatch(/│ algorithm\.adv_estimator │$/);
    expectUserError(await turnlab(['runs', '--sort', 'lr']), /--sort: 'lr' is not a column; .* \(a config key is config:<path>\.lr\)$/);
    expectUserError(await turnlab(['runs', '--columns', 'a b']), /--columns: 'a b' is neither a dotted config key/);
    // A column no run has would be a column of `-`: named, with the nearest one, as --where names it.
    expectUserError(await turnlab(['runs', '--columns', 'algorithm.adv_estimater']), /^turnlab: --columns: no run has the config key 'algorithm\.adv_estimater' \(did you mean algorithm\.adv_estimator\?\)$/);
    expectUserError(await turnlab(['runs', '--sort', 'config:algorithm.adv_estimater']), /^turnlab: --sort: no run has the config key 'algorithm\.adv_estimater' \(did you mean algorithm\.adv_estimator\?\)$/);
    expectUserError(await turnlab(['runs', '--columns', 'algorithm.adv_estimator,metric:train/reward/meen', '--json']), /^turnlab: --columns: no run logged the metric 'train\/reward\/meen' \(did you mean metric:train\/reward\/mean\?\)$/);
  });

  it('keeps the runs that meet --where on config keys and metrics, and names a misspelt key', async () => {
    const ids = async (...args: string[]) => (JSON.parse((await turnlab(['runs', ...args, '--json'])).stdout) as Array<{ id: number }>).map((r) => r.id);
    expect(await ids('--where', 'algorithm.adv_estimator=grpo')).toEqual([1, 3]);
    // Conditions joined by `and` in one --where, or several --where: all must hold.
    const all = JSON.parse((await turnlab(['runs', '--columns', 'metric:train/reward/mean', '--json'])).stdout) as Array<{ id: number; columns: Record<string, number | null> }>;
    const reward = all.find((r) => r.id === 1)!.columns['metric:train/reward/mean']!;
    const atMost = all.filter((r) => r.columns['metric:train/reward/mean'] !== null && r.columns['metric:train/reward/mean']! <= reward).map((r) => r.id);
    expect(await ids('--where', `metric:train/reward/mean<=${reward}`)).toEqual(atMost);
    expect(await ids('--where', `metric:train/reward/mean <= ${reward} and algorithm.adv_estimator != ppo`)).toEqual(atMost.filter((id) => id !== 2));
    expect(await ids('--where', `metric:train/reward/mean<=${reward}`, '--where', 'algorithm.adv_estimator=ppo')).toEqual(atMost.filter((id) => id === 2));
    const none = await turnlab(['runs', '--where', 'algorithm.gamma>1000000']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`no run in ${data.dir} matches --where\n`);
    // A status (or algorithm, env, tag) no run has: the ones the runs here have.
    const statuses = [...new Set((JSON.parse((await turnlab(['runs', '--json'])).stdout) as Array<{ status: string }>).map((r) => r.status))].sort();
    const stopped = await turnlab(['runs', '--where', 'status=stopped']);
    expect(stopped.stdout).toBe(`no run in ${data.dir} matches --where: no run has status=stopped; status here is one of ${statuses.join(', ')}\n`);
    // A status no run can have is a mistake, not an empty answer.
    expectUserError(await turnlab(['runs', '--where', 'status=finished']), /--where: 'status=finished': "finished" is not a status; a run's status is one of queued, running, stopping, stopped, completed, failed, interrupted$/);
    // The columns --sort takes, --where takes too, and the other way round.
    const json = JSON.parse((await turnlab(['runs', '--json'])).stdout) as Array<{ id: number; createdAt: number; iterations: number | null }>;
    expect(await ids('--where', `created_at<=${json[0].createdAt}`)).toEqual([json[0].id]);
    expect(await ids('--where', 'created_at>=2000-01-01 and iterations>=0')).toEqual(json.filter((r) => r.iterations !== null).map((r) => r.id).sort((a, b) => a - b));
    expectUserError(await turnlab(['runs', '--where', 'created_at>yesterday']), /created_at compares with a date \(2026-12-01\), a date and time \(2026-12-01T08:30\) or milliseconds since 1970, not 'yesterday'$/);
    expectUserError(await turnlab(['runs', '--where', 'iterations>=ten']), /iterations is a number; compare it with a number, not "ten"$/);
    expectUserError(await turnlab(['export', '--where', 'algorithm=dpo', '--what', 'runs']), /^turnlab: no run in .* matches --where: no run has algorithm=dpo; algorithm here is one of grpo, ppo; nothing to export$/);
    expectUserError(await turnlab(['runs', '--where', 'algorithm.adv_estimater=grpo']), /--where: no run has the config key 'algorithm\.adv_estimater' \(did you mean algorithm\.adv_estimator\?\)$/);
    expectUserError(await turnlab(['runs', '--where', 'metric:train/reward/meen<1']), /--where: no run logged the metric 'train\/reward\/meen' \(did you mean metric:train\/reward\/mean\?\)$/);
    expectUserError(await turnlab(['runs', '--where', 'lr']), /--where: 'lr' has no operator \(a condition is/);
  });

  it('exports the runs --where selects, and says when none does', async () => {
    const exported = await turnlab(['export', '--where', 'algorithm.adv_estimator=grpo', '--what', 'runs', '--format', 'jsonl']);
    expect(exported.code).toBe(0);
    expect(exported.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([1, 3]);
    expectUserError(await turnlab(['export', '--where', 'algorithm.adv_estimator=gae', '--what', 'runs']), /^turnlab: no run in .* matches --where; nothing to export$/);
    expectUserError(await turnlab(['export', '1', '--where', 'algorithm.adv_estimator=grpo', '--what', 'runs']), /name runs or select them with --where, not both/);
    expectUserError(await turnlab(['export', '--where', 'algorithm.adv_estimatr=grpo', '--what', 'runs']), /--where: no run has the config key 'algorithm\.adv_estimatr' \(did you mean algorithm\.adv_estimator\?\)$/);
  });

  it('prints the config keys on which runs differ, every key with --all', async () => {
    const table = await turnlab(['diff', '1', 'sokoban-ppo']);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[1]).toMatch(/│ key\s+│ 1 frozenlake-grpo\s+│ 2 sokoban-ppo\s+│/);
    expect(table.stdout).toMatch(/│ algorithm\.adv_estimator\s+│ grpo\s+│ ppo\s+│/);
    expect(table.stdout).toMatch(/│ env\.is_slippery\s+│ true\s+│ false\s+│/);
    expect(table.stdout).not.toMatch(/algorithm\.gamma/);
    const json = JSON.parse((await turnlab(['diff', '1', '2', '--all', '--json'])).stdout) as { runs: Array<{ id: number }>; rows: Array<{ key: string; values: unknown[]; differs: boolean }> };
    expect(json.runs.map((r) => r.id)).toEqual([1, 2]);
    expect(json.rows.find((r) => r.key === 'algorithm.gamma')).toEqual({ key: 'algorithm.gamma', values: [1, 1], differs: false });
    expect(json.rows.find((r) => r.key === 'env.is_slippery')).toEqual({ key: 'env.is_slippery', values: [true, false], differs: true });
    // Runs 1 and 3 (its fork) differ in their names and seeds only.
    expect(JSON.parse((await turnlab(['diff', '1', '3', '--json'])).stdout).rows.map((r: { key: string }) => r.key)).toEqual(['name', 'seed']);
    expectUserError(await turnlab(['diff', '1', '1']), /^turnlab: diff needs two or more runs, got only run 1$/);
  });

  it('accepts --data-dir over TURNLAB_DATA_DIR', () => {
    const result = spawned(['--data-dir', data.dir, 'runs', '--json'], { TURNLAB_DATA_DIR: join(scratch.dir, 'nope') });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
  });
});

describe('turnlab show', () => {
  it("prints a run's config as YAML and its latest metrics, by name", async () => {
    const result = await turnlab(['show', 'sokoban-ppo']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^run 2: sokoban-ppo \(failed\)/);
    expect(result.stdout).toContain('error: Error: loss became NaN');
    // The fixture's runs were not trained by a trainer that logged its code.
    expect(result.stdout).toContain('\ncode: - (trained before TurnLab recorded it)\n');
    const yamlText = result.stdout.split('\nconfig:\n')[1].split('\n\nlatest metrics:\n')[0];
    expect(parseYaml(yamlText)).toEqual(data.runs[1].run.config);
    const metricsTable = result.stdout.split('\n\nlatest metrics:\n')[1];
    expect(metricsTable).toMatch(/│ val\/sokoban\/success\s+│ 8\s+│/);
    expect(metricsTable).toMatch(/│ train\/kl\s+│ 8\s+│ NaN/);
  });

  it('prints one view at a time: --config, --log or --follow, and JSON only of the run or its log', async () => {
    expectUserError(await turnlab(['show', '3', '--config', '--log']), /^turnlab: --config and --log each print a view of their own; give one$/);
    expectUserError(await turnlab(['show', '3', '--log', '--follow']), /^turnlab: --log and --follow each print a view of their own; give one$/);
    expectUserError(await turnlab(['show', '3', '--config', '--json']), /^turnlab: --config prints YAML to train from; `turnlab show <run> --json` holds the config as JSON$/);
  });

  it('prints the run and its latest metrics as JSON, by id', async () => {
    const result = await turnlab(['show', '3', '--json']);
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout) as {
      run: { id: number; parentRunId: number; parentIteration: number };
      latestMetrics: Array<{ name: string; iteration: number }>;
    };
    expect(shown.run).toMatchObject({ id: 3, parentRunId: 1, parentIteration: 4 });
    expect(shown.latestMetrics.map((m) => m.name)).toContain('val/frozenlake/success');
    expect(shown.latestMetrics.every((m) => m.iteration === 8)).toBe(true);
  });
});

describe('turnlab export', () => {
  it('streams one run as JSONL to stdout', async () => {
    const result = await turnlab(['export', 'frozenlake-grpo', '--what', 'metrics', '--format', 'jsonl']);
    expect(result.code).toBe(0);
    const rows = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { run_id: number });
    expect(rows).toHaveLength(data.runs[0].metricCount);
    expect(rows.every((r) => r.run_id === 1)).toBe(true);
  });

  it('names the run in every row of a metric CSV', async () => {
    const out = join(scratch.dir, 'metrics.csv');
    const result = await turnlab(['export', 'sokoban-ppo', '--what', 'metrics', '--out', out]);
    expect(result.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.split('\r\n', 1)[0]).toBe('run_id,run_name,name,iteration,value,wall_time');
    const rows = parseCsv(text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(data.runs[1].metricCount);
    expect(rows.every((r) => r.run_id === '2' && r.run_name === 'sokoban-ppo')).toBe(true);
  });

  it('writes every run to --out as CSV, and will not overwrite it without --force', async () => {
    const out = join(scratch.dir, 'turns.csv');
    const first = await turnlab(['export', '--all', '--what', 'turns', '--format', 'csv', '--out', out]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    const total = data.runs.reduce((sum, r) => sum + r.turnCount, 0);
    expect(first.stderr).toContain(`exported ${total} rows of turns from 3 runs`);
    const rows = parseCsv(readFileSync(out, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => r.run_id))).toEqual(new Set(['1', '2', '3']));

    const before = sha(out);
    const again = await turnlab(['export', '--all', '--what', 'runs', '--out', out]);
    expectUserError(again, /turns\.csv already exists; pass --force to overwrite it/);
    expect(sha(out)).toBe(before);

    const forced = await turnlab(['export', '1', '2', '--what', 'runs', '--out', out, '--force']);
    expect(forced.code).toBe(0);
    const runs = parseCsv(readFileSync(out, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(runs.map((r) => r.name)).toEqual(['frozenlake-grpo', 'sokoban-ppo']);
  });

  it('refuses to start without runs, with both runs and --all, or with a bad --what, and exports metrics without one', async () => {
    expectUserError(await turnlab(['export', '--what', 'runs']), /name the runs to export .*, pass --all, or select them with --where$/);
    expectUserError(await turnlab(['export', '1', '--all', '--what', 'runs']), /not both/);
    expectUserError(await turnlab(['export', '1', '--what', 'tokens']), /'--what <kind>' argument 'tokens' is invalid/);
    // Without --what, the metrics: what a researcher exporting a run wants first.
    const metrics = await turnlab(['export', '1']);
    expect(metrics.code).toBe(0);
    expect(metrics.stdout.split('\r\n')[0]).toBe('run_id,run_name,name,iteration,value,wall_time');
    expect(metrics.stdout.split('\r\n').length).toBeGreaterThan(2);
    const out = join(scratch.dir, 'missing-folder', 'x.csv');
    expectUserError(await turnlab(['export', '1', '--what', 'runs', '--out', out]), /its folder does not exist/);
  });
});

describe('errors', () => {
  it('an unknown run id or name', async () => {
    expectUserError(await turnlab(['show', '99']), /unknown run '99'/);
    expectUserError(await turnlab(['export', '1', 'nope', '--what', 'runs']), /unknown run 'nope'/);
  });

  it('a missing data folder, which is not created', async () => {
    const missing = join(scratch.dir, 'no-such-folder');
    expectUserError(await turnlab(['runs'], { TURNLAB_DATA_DIR: missing }), /data folder .*no-such-folder does not exist: nothing was trained with it yet/);
    expect(existsSync(missing)).toBe(false);
  });

  // A new machine's first `turnlab runs` is no error: the default folder comes with the first training.
  it('lists nothing, without an error, while the default data folder does not exist yet', async () => {
    const home = join(scratch.dir, 'new-machine-config');
    const fresh = { TURNLAB_DATA_DIR: undefined, XDG_CONFIG_HOME: home };
    for (const [args, text] of [
      [['runs'], 'runs'],
      [['groups'], 'seed groups'],
      [['sweeps'], 'sweeps'],
    ] as const) {
      const listed = await turnlab([...args], fresh);
      expect([listed.code, listed.stderr]).toEqual([0, '']);
      expect(listed.stdout).toBe(`no ${text} yet: the data folder ${join(home, 'TurnLab')} does not exist until the first training (turnlab train --config bandit)\n`);
      expect((await turnlab([...args, '--json'], fresh)).stdout).toBe('[]\n');
    }
    expectUserError(await turnlab(['show', '1'], fresh), /data folder .* does not exist: nothing was trained with it yet \(the first training creates it\)/);
    expect(existsSync(home)).toBe(false);
  });

  it('a data folder without a database, or one that is a file', async () => {
    expectUserError(await turnlab(['runs'], { TURNLAB_DATA_DIR: scratch.dir }), /no TurnLab database in/);
    expect(existsSync(join(scratch.dir, 'turnlab.sqlite'))).toBe(false);
    const file = join(scratch.dir, 'a-file');
    writeFileSync(file, 'x');
    expectUserError(await turnlab(['show', '1'], { TURNLAB_DATA_DIR: file }), /is not a folder/);
  });

  it('an unknown flag', async () => {
    expectUserError(await turnlab(['runs', '--colour']), /unknown option '--colour'/);
  });
});
