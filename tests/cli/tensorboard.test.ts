// TensorBoard's event files, read back by a reader TurnLab's writer does not share (Google's
// protobuf runtime and crcmod's CRC-32C in Python, tests/helpers/tfevents_reader.py): every
// record's CRCs, the file version first, then every stored point with its tag, step, value (as
// float32) and time, a 0 and a NaN included. `turnlab export --format tfevents` writes them from
// the store; `trainer.logger: [console, tensorboard]` (verl's key) as a run trains, a resumed
// run's file starting with a restart at its first iteration.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { deleteRun } from '../../main/services/run-admin';
import { runFolderName } from '../../main/services/tensorboard-folders';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_OVERRIDES } from '../helpers/turnlab-cli';
import { pythonWith } from '../helpers/python-with';

const READER = fileURLToPath(new URL('../helpers/tfevents_reader.py', import.meta.url));
/** A test's skip note without the reader's libraries; the skip reporter reads it as NEEDS_PYTHON_PROTOBUF. */
const NOTE = 'python3 with protobuf and crcmod not found: the independent reader of event files cannot run';

interface ReadEvent {
  wall_time: number;
  step: number;
  what: 'file_version' | 'summary' | 'session_log';
  file_version?: string;
  session_status?: number;
  values?: Array<{ tag: string; simple_value: number | 'NaN' | null }>;
}

let data: FixtureDataDir;
let out: TempDir;
const python = pythonWith('google.protobuf, crcmod.predefined');

beforeAll(() => {
  data = makeFixtureDataDir({ iterations: 4 });
  out = makeTempDir();
  // Points the fixture lacks: a 0 (proto3 would drop it outside a oneof), a NaN (stored as NULL), an expert-iteration round's negative step.
  const store = openStore(data.dir);
  try {
    store.metrics.insert([
      { runId: 1, name: 'edge/zero', iteration: 1, value: 0, wallTime: 1_700_000_000_123 },
      { runId: 1, name: 'edge/nan', iteration: 2, value: Number.NaN, wallTime: 1_700_000_000_456 },
      { runId: 1, name: 'expert_iteration/solved', iteration: -2, value: 0.25, wallTime: 1_700_000_000_789 },
    ]);
  } finally {
    store.close();
  }
});

afterAll(() => {
  data.cleanup();
  out.cleanup();
});

const turnlab = (...args: string[]) => runTurnlabInProcess(args, { dataDir: data.dir });
const eventFiles = (folder: string) => readdirSync(folder).filter((f) => f.includes('tfevents'));

describe('turnlab export --format tfevents', () => {
  it('writes every metric point of every run, as a strict reader reads them', async (ctx) => {
    if (python === null) ctx.skip(NOTE);
    const result = await turnlab('export', '--all', '--what', 'metrics', '--format', 'tfevents', '--out', out.dir);
    expect(result.stderr).toMatch(/^exported \d+ metric points of 3 runs as TensorBoard event files under .* \(tensorboard --logdir .*\)\n$/);
    expect(result.code).toBe(0);

    const store = openStore(data.dir);
    let points = 0;
    try {
      for (const { run } of data.runs) {
        const folder = join(out.dir, runFolderName(run.id, run.name));
        const [file] = eventFiles(folder);
        expect(eventFiles(folder)).toHaveLength(1);
        const events = JSON.parse(execFileSync(python!, [READER, join(folder, file)], { encoding: 'utf8', maxBuffer: 1 << 26 })) as ReadEvent[];
        expect(events[0]).toEqual({ wall_time: run.createdAt / 1000, step: 0, what: 'file_version', file_version: 'brain.Event:2' });
        const stored = [...store.metrics.exportRows([run.id])].map((row) => ({
          wall_time: (row.wall_time as number) / 1000,
          step: row.iteration as number,
          what: 'summary',
          values: [{ tag: row.name as string, simple_value: row.value === null ? 'NaN' : Math.fround(row.value as number) }],
        }));
        // A run that logged nothing (the interrupted fork) is a file with its version alone.
        expect(events.slice(1)).toEqual(stored);
        points += stored.length;
      }
      expect(points).toBeGreaterThan(40);
      const first = JSON.parse(execFileSync(python!, [READER, join(out.dir, runFolderName(1, data.runs[0].run.name), eventFiles(join(out.dir, runFolderName(1, data.runs[0].run.name)))[0])], { encoding: 'utf8' })) as ReadEvent[];
      const byTag = (tag: string) => first.find((e) => e.values?.[0].tag === tag);
      expect(byTag('edge/zero')).toMatchObject({ step: 1, values: [{ simple_value: 0 }] });
      expect(byTag('edge/nan')).toMatchObject({ step: 2, values: [{ simple_value: 'NaN' }] });
      expect(byTag('expert_iteration/solved')).toMatchObject({ step: -2, values: [{ simple_value: 0.25 }] });
    } finally {
      store.close();
    }
  });

  it("refuses to write over its own files without --force, replaces them with it, and leaves other writers' files alone", async () => {
    const folder = join(out.dir, runFolderName(2, data.runs[1].run.name));
    // The first test may have skipped: make sure the folder holds an export.
    await turnlab('export', '2', '--what', 'metrics', '--format', 'tfevents', '--out', out.dir, '--force');
    const before = eventFiles(folder);
    writeFileSync(join(folder, 'events.out.tfevents.1.host.v2'), 'another writer');
    const again = await turnlab('export', '2', '--what', 'metrics', '--format', 'tfevents', '--out', out.dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`turnlab: ${folder} already holds TurnLab's event file of that run; pass --force to replace it (nothing was written)\n`);
    const forced = await turnlab('export', '2', '--what', 'metrics', '--format', 'tfevents', '--out', out.dir, '--force');
    expect(forced.code).toBe(0);
    expect(eventFiles(folder).sort()).toEqual([...before, 'events.out.tfevents.1.host.v2'].sort());
    // No partial file is left beside them.
    expect(readdirSync(folder).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('quotes a folder with a space in the command it suggests', async () => {
    const spaced = join(out.dir, 'my runs');
    const result = await turnlab('export', '1', '--what', 'metrics', '--format', 'tfevents', '--out', spaced);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`(tensorboard --logdir '${spaced}')`);
  });

  it('says what to give instead of a kind it does not hold, no folder, or a file', async () => {
    const refused = async (args: string[], message: string) => {
      const result = await turnlab('export', '1', '--format', 'tfevents', ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`turnlab: ${message}\n`);
    };
    await refused(['--what', 'turns', '--out', out.dir], '--format tfevents holds metrics only: use --what metrics (not turns)');
    await refused(['--what', 'metrics'], '--format tfevents writes a folder of event files: give it --out DIR (then: tensorboard --logdir DIR)');
    const file = join(out.dir, 'a-file');
    writeFileSync(file, 'x');
    await refused(['--what', 'metrics', '--out', file], `cannot write ${file}: it is a file; --format tfevents writes a folder of event files, give --out a folder`);
    // Node's recursive mkdir would spin forever here.
    await refused(['--what', 'metrics', '--out', '/proc/turnlab-tb'], 'cannot create a folder under /proc/turnlab-tb: /proc: its file system does not accept new folders (ENOENT); choose another --out (nothing was written)');
  });
});

/** The events of a file as the independent reader reads them. */
const readEvents = (file: string) => JSON.parse(execFileSync(python!, [READER, file], { encoding: 'utf8', maxBuffer: 1 << 26 })) as ReadEvent[];

/** Summary events as (step, tag, value, wall time) in one order, the store's rows likewise. */
const scalars = (events: ReadEvent[]) =>
  events
    .filter((e) => e.what === 'summary')
    .map((e) => [e.step, e.values![0].tag, e.values![0].simple_value, e.wall_time] as const)
    .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));

describe('trainer.logger: [console, tensorboard]', () => {
  let dir: TempDir;
  beforeAll(() => {
    dir = makeTempDir();
  });
  afterAll(() => dir.cleanup());

  const storedPoints = (dataDir: string, runId: number, from = -Infinity) => {
    const store = openStore(dataDir);
    try {
      return [...store.metrics.exportRows([runId])]
        .filter((row) => (row.iteration as number) >= from)
        .map((row) => [row.iteration as number, row.name as string, row.value === null ? 'NaN' : Math.fround(row.value as number), (row.wall_time as number) / 1000] as const)
        .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
    } finally {
      store.close();
    }
  };

  it('writes every metric as it is stored, and a resume restarts at its first iteration', async (ctx) => {
    if (python === null) ctx.skip(NOTE);
    const dataDir = join(dir.dir, 'data');
    const config = join(repoRoot, 'configs/bandit.yaml');
    const trained = await runTurnlabInProcess(['train', '--config', config, ...TINY_OVERRIDES, 'trainer.total_training_steps=2', 'trainer.save_freq=1', 'trainer.logger=[console,tensorboard]', '--name', 'tb'], { dataDir });
    expect(trained.code).toBe(0);
    const folder = join(dataDir, 'tensorboard', runFolderName(1, 'tb'));
    expect(trained.stderr).toContain(`tensorboard: the metrics also go to ${folder} (tensorboard --logdir ${join(dataDir, 'tensorboard')})`);
    const [first] = eventFiles(folder);
    const events = readEvents(join(folder, first));
    expect(events[0]).toMatchObject({ step: 0, what: 'file_version', file_version: 'brain.Event:2' });
    expect(scalars(events)).toEqual(storedPoints(dataDir, 1));
    expect(scalars(events).length).toBeGreaterThan(20);

    // Resumed from iteration 2 into a folder of its choosing (verl's TENSORBOARD_DIR): a second file.
    const tensorboardDir = join(dir.dir, 'tb');
    const resumed = await runTurnlabInProcess(['resume', '1', 'trainer.total_training_steps=3'], { dataDir, env: { TENSORBOARD_DIR: tensorboardDir } });
    expect(resumed.code).toBe(0);
    const [second] = eventFiles(join(tensorboardDir, runFolderName(1, 'tb')));
    const after = readEvents(join(tensorboardDir, runFolderName(1, 'tb'), second));
    expect(after.slice(0, 2).map((e) => [e.what, e.step, e.session_status])).toEqual([['file_version', 0, undefined], ['session_log', 3, 1]]);
    expect(scalars(after)).toEqual(storedPoints(dataDir, 1, 3));

    // Deleting the run takes the copy in the data folder with it; $TENSORBOARD_DIR's is the user's.
    const store = openStore(dataDir);
    try {
      await deleteRun(store, 1, new Set());
    } finally {
      store.close();
    }
    expect(existsSync(folder)).toBe(false);
    expect(eventFiles(join(tensorboardDir, runFolderName(1, 'tb')))).toEqual([second]);

    // A folder it cannot write is said once, and the run trains on (the event file is a copy).
    const unwritable = await runTurnlabInProcess(['train', '--config', config, ...TINY_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.logger=[console,tensorboard]'], { dataDir, env: { TENSORBOARD_DIR: '/proc/turnlab-tb' } });
    expect(unwritable.code).toBe(0);
    expect(unwritable.stderr.match(/tensorboard: cannot write/g)).toHaveLength(1);
    expect(unwritable.stderr).toContain('tensorboard: cannot write /proc/turnlab-tb/run-2-bandit (/proc: its file system does not accept new folders (ENOENT)); no more event files for this run');
    expect(unwritable.stdout).toMatch(/run 2 \(bandit\) completed at iteration 1/);

    // verl's other loggers are refused by name, before any run is stored.
    const wandb = await runTurnlabInProcess(['train', '--config', config, 'trainer.logger=[console,wandb]'], { dataDir });
    expect(wandb.code).toBe(2);
    expect(wandb.stderr.trim()).toBe(
      "turnlab: --set trainer.logger=[console,wandb]: `trainer.logger.1` must be one of console | tensorboard, got the string \"wandb\": it sends the metrics to a service; TurnLab keeps them in its data folder, shows them in the workbench, and `turnlab export` writes them as CSV, JSONL or TensorBoard's files (or add tensorboard here)",
    );
  });
});
