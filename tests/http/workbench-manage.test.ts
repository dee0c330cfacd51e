// The workbench's management calls (rename, tag, note, delete, export, evaluate refusals), the
// streaming GET routes of `turnlab serve` (export, model archive, events) and start-up recovery.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnLabEvent } from '../../preload/contract';
import { createApi, type Api } from '../../main/api';
import { startHttpServer, type RunningHttpServer } from '../../main/http';
import { exportColumns } from '../../main/services/export';
import { recoverInterruptedRuns } from '../../main/services/recovery';
import { RunEventWatcher, diffProgress } from '../../main/services/run-events';
import { openStore, type Store } from '../../main/store/db';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';

let fixture: FixtureDataDir;
let out: TempDir;
let store: Store;
let events: RunEventWatcher;
let api: Api;
let server: RunningHttpServer;
let saveTo: string | null = null;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolveReply, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method: 'GET', path, headers: { Host: `127.0.0.1:${server.port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolveReply({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const auth = () => ({ Authorization: `Bearer ${server.token}` });

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = (await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  )) as { code: string; message: string };
  return error;
}

/** A pid that surely belongs to no process any more. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/** The file name the last save dialog offered. */
let suggestedName: string | null = null;

beforeAll(async () => {
  fixture = makeFixtureDataDir({ iterations: 4, checkpointEvery: 2 });
  out = makeTempDir('turnlab-manage-out-');
  store = openStore(fixture.dir);
  events = new RunEventWatcher(store, 50);
  api = createApi(store, {
    version: 'test',
    events,
    dialogs: {
      chooseFile: async (suggested: string) => {
        suggestedName = suggested;
        return saveTo;
      },
      chooseFolder: async () => saveTo,
    },
  });
  const rendererDir = join(out.dir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
  server = await startHttpServer({ api, rendererDir, store, events });
});

afterAll(async () => {
  await server?.close();
  events?.stop();
  store?.close();
  fixture?.cleanup();
  out?.cleanup();
});

describe('renaming, tagging and annotating runs', () => {
  it('updates name, tags (trimmed, once each) and notes', async () => {
    const id = fixture.runs[0].run.id;
    const updated = await api.updateRun(id, { name: ' renamed ', tags: [' baseline', 'seed-1', 'baseline', ''], notes: 'first try\nlr too high' });
    expect(updated).toMatchObject({ id, name: 'renamed', tags: ['baseline', 'seed-1'], notes: 'first try\nlr too high' });
    expect(store.runs.get(id)).toMatchObject({ name: 'renamed', tags: ['baseline', 'seed-1'] });
  });

  it('refuses an empty name, an unknown run and malformed edits, changing nothing', async () => {
    const id = fixture.runs[0].run.id;
    const before = store.runs.get(id);
    expect(await refusal(api.updateRun(id, { name: '  ' }))).toMatchObject({ code: 'REFUSED' });
    expect(await refusal(api.updateRun(9999, { notes: 'x' }))).toMatchObject({ code: 'NOT_FOUND' });
    // A bound names its field and unit, as the workbench shows it without the argument path.
    expect(await refusal(api.updateRun(id, { name: 'n'.repeat(300) }))).toMatchObject({ code: 'INVALID_ARGUMENTS', message: 'updateRun: argument 1.name: name must have at most 200 characters' });
    expect(await refusal(api.call('compareMetricNames', [Array.from({ length: 201 }, (_, i) => i + 1)]))).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'compareMetricNames: argument 0: Compare takes at most 200 runs at once; select fewer (a filter, a tag)',
    });
    expect(await refusal(api.call('updateRun', [id, { status: 'completed' }]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(await refusal(api.call('updateRun', [id, { tags: 'a,b' }]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(await refusal(api.call('updateRun', [-1, {}]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(store.runs.get(id)).toEqual(before);
  });
});

describe('tagging and deleting the Runs view\'s selection', () => {
  const tagsOf = (ids: number[]) => ids.map((id) => store.runs.get(id)!.tags);
  /** A run of the store's own, with its metrics and a checkpoint folder, for this describe to delete. */
  function extraRun(name: string): number {
    const run = store.runs.create({ name, config: { trainer: { seed: 1 } }, seed: 1, envTags: ['bandit'], algorithm: 'grpo', status: 'completed', createdAt: Date.now(), startedAt: Date.now(), backend: 'wasm', device: 'cpu', parentRunId: null, parentCheckpointId: null, parentIteration: null, tags: [], notes: '' });
    mkdirSync(join(fixture.dir, 'checkpoints', `run-${run.id}`), { recursive: true });
    return run.id;
  }

  it('adds and removes tags on every selected run, or on none when one would break a limit', async () => {
    const ids = fixture.runs.map((r) => r.run.id);
    const before = tagsOf(ids);
    expect(await api.tagRuns({ runIds: ids, add: [' sweep-a ', 'keep'], remove: ['seed-1'] })).toEqual({ runs: 3, changed: 3 });
    // A tag every run has already, or none has, changes nothing, and says so.
    expect(await api.tagRuns({ runIds: ids, add: ['keep'], remove: ['never-there'] })).toEqual({ runs: 3, changed: 0 });
    expect(tagsOf(ids)).toEqual(before.map((tags) => [...new Set([...tags.filter((t) => t !== 'seed-1'), 'sweep-a', 'keep'])]));
    expect(tagsOf(ids)[0]).toEqual(['baseline', 'sweep-a', 'keep']);

    const full = ids[1];
    store.runs.update(full, { tags: Array.from({ length: 50 }, (_, i) => `t${i}`) });
    const snapshot = tagsOf(ids);
    // The refusal names the run, one among many selected.
    const fullName = store.runs.get(full)!.name;
    expect(await refusal(api.tagRuns({ runIds: ids, add: ['one-more'], remove: [] }))).toMatchObject({ code: 'REFUSED', message: `run ${full} (${fullName}): a run holds at most 50 tags (this would make 51)` });
    expect(await refusal(api.tagRuns({ runIds: ids, add: ['x'.repeat(101)], remove: [] }))).toMatchObject({ code: 'REFUSED', message: `tags to add: each of the tags holds at most 100 characters ('${'x'.repeat(20)}...' has 101)` });
    expect(await refusal(api.tagRuns({ runIds: ids, add: [' '], remove: [] }))).toMatchObject({ code: 'REFUSED', message: 'say which tag to add or remove: an empty tag is no tag' });
    expect(await refusal(api.tagRuns({ runIds: ids, add: ['x'], remove: ['x '] }))).toMatchObject({ code: 'REFUSED', message: "'x' is both added and removed: give it once, to add or to remove" });
    expect(await refusal(api.tagRuns({ runIds: [ids[0], 9999], add: ['x'], remove: [] }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(api.call('tagRuns', [{ runIds: [], add: ['x'], remove: [] }]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(tagsOf(ids)).toEqual(snapshot);
    store.runs.update(full, { tags: [] });
  });

  it('deletes the selected runs with their folders, and none of them while one trains', async () => {
    const [a, b] = [extraRun('bulk-a'), extraRun('bulk-b')];
    store.runs.update(b, { status: 'running' });
    store.runs.setTrainerProcess(b, process.pid, hostname());
    try {
      expect(await refusal(api.deleteRuns([a, b]))).toMatchObject({ code: 'REFUSED', message: expect.stringMatching(/is training.*; none of the 2 runs was deleted$/) });
      expect(store.runs.get(a)).toBeDefined();
      expect(existsSync(join(fixture.dir, 'checkpoints', `run-${a}`))).toBe(true);
    } finally {
      store.runs.update(b, { status: 'stopped' });
      store.runs.releaseOwner(b, process.pid, hostname());
    }
    expect(await api.deleteRuns([a, b, a])).toEqual([a, b]);
    expect([store.runs.get(a), store.runs.get(b)]).toEqual([undefined, undefined]);
    expect(existsSync(join(fixture.dir, 'checkpoints', `run-${a}`))).toBe(false);
    expect(await refusal(api.deleteRuns([a]))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('deleting', () => {
  it('refuses to delete a run whose trainer is alive, and its checkpoints', async () => {
    const target = fixture.runs[1].run.id;
    store.runs.update(target, { status: 'running' });
    store.runs.setTrainerProcess(target, process.pid, hostname());
    try {
      expect(await refusal(api.deleteRun(target))).toMatchObject({ code: 'REFUSED', message: expect.stringMatching(/is training/) });
      const checkpoint = store.checkpoints.listByRun(target)[0];
      expect(await refusal(api.deleteCheckpoint(checkpoint.id))).toMatchObject({ code: 'REFUSED' });
      expect(store.runs.get(target)).toBeDefined();
      expect(store.checkpoints.get(checkpoint.id)).toBeDefined();
    } finally {
      store.runs.update(target, { status: 'failed' });
      store.runs.releaseOwner(target, process.pid, hostname());
    }
  });

  it('deletes one checkpoint with its folder', async () => {
    const checkpoint = fixture.runs[1].checkpoints[0];
    const folder = join(fixture.dir, checkpoint.path);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'weights.bin'), 'w');
    await api.deleteCheckpoint(checkpoint.id);
    expect(store.checkpoints.get(checkpoint.id)).toBeUndefined();
    expect(existsSync(folder)).toBe(false);
    expect(await refusal(api.deleteCheckpoint(checkpoint.id))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deletes a run with its data and its checkpoint folder; forks keep their lineage iteration', async () => {
    const parent = fixture.runs[0].run.id;
    const fork = fixture.runs.find((r) => r.run.parentRunId === parent)!.run;
    const folder = join(fixture.dir, 'checkpoints', `run-${parent}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'x'), 'x');
    await api.deleteRun(parent);
    expect(store.runs.get(parent)).toBeUndefined();
    expect(store.metrics.names(parent)).toEqual([]);
    expect(existsSync(folder)).toBe(false);
    expect(store.runs.get(fork.id)).toMatchObject({ parentRunId: null, parentIteration: fork.parentIteration });
    expect(await refusal(api.deleteRun(parent))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(api.call('deleteRun', ['1']))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('evaluation and edited configs without a run manager', () => {
  it('refuses with a message naming why', async () => {
    const checkpoint = fixture.runs[2].checkpoints[0];
    expect(await refusal(api.evaluateCheckpoint({ checkpointId: checkpoint.id }))).toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/run control/) });
    expect(await refusal(api.evaluateCheckpoint({ checkpointId: 9999 }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(api.call('evaluateCheckpoint', [{ checkpointId: checkpoint.id, episodes: 0 }]))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    // Past what one evaluation plays at once: said in words, not as the schema library's.
    expect(await refusal(api.call('evaluateCheckpoint', [{ checkpointId: checkpoint.id, episodes: 100_000_000 }]))).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(/episodes must be at most 100000 \(played at once\)$/),
    });
    expect(await refusal(api.startRunFromText({ yaml: 'trainer: [1' }))).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('export from the GUI', () => {
  it('saves through the desktop dialog with the CLI export code, and does nothing when cancelled', async () => {
    const runId = fixture.runs[2].run.id;
    saveTo = join(out.dir, 'metrics.csv');
    const saved = await api.saveExport({ what: 'metrics', format: 'csv', runIds: [runId] });
    expect(saved).toEqual({ path: saveTo, rows: fixture.runs[2].metricCount });
    const lines = readFileSync(saveTo, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(exportColumns('metrics').join(','));
    expect(lines).toHaveLength(fixture.runs[2].metricCount + 1);
    // The metric CSV names its run: in the offered file name and in a run_name column.
    expect(suggestedName).toBe(`turnlab-metrics-run-${runId}-frozenlake-grpo-fork.csv`);
    expect(lines[0].startsWith('run_id,run_name,name,')).toBe(true);
    expect(lines.slice(1).every((line) => line.startsWith(`${runId},frozenlake-grpo-fork,`))).toBe(true);
    saveTo = null;
    expect(await api.saveExport({ what: 'runs', format: 'jsonl', runIds: [] })).toBeNull();
    expect(await refusal(api.saveExport({ what: 'runs', format: 'jsonl', runIds: [424242] }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses the save methods where there are no dialogs (browser mode)', async () => {
    const browserApi = createApi(store, { version: 'test' });
    expect(await refusal(browserApi.saveExport({ what: 'runs', format: 'csv', runIds: [] }))).toMatchObject({ code: 'REFUSED' });
  });

  it('streams GET /api/export as a CSV download, with the token only', async () => {
    const runId = fixture.runs[2].run.id;
    const path = `/api/export?what=episodes&format=csv&runs=${runId}`;
    expect((await get(path)).status).toBe(401);
    expect((await get(`${path}&token=wrong`)).status).toBe(401);
    expect((await get(path, { ...auth(), Host: 'evil.example:80' })).status).toBe(403);
    expect((await get(path, { ...auth(), Origin: 'http://evil.example' })).status).toBe(403);
    const reply = await get(path, auth());
    expect(reply.status).toBe(200);
    // One run: the file is named by its id and name.
    expect(fixture.runs[2].run.name).toBe('frozenlake-grpo-fork');
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="turnlab-episodes-run-${runId}-frozenlake-grpo-fork.csv"`);
    const lines = reply.body.toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe(exportColumns('episodes').join(','));
    expect(lines).toHaveLength(fixture.runs[2].episodeIds.length + 1);
    const byQueryToken = await get(`/api/export?what=runs&format=jsonl&token=${server.token}`);
    expect(byQueryToken.body.toString('utf8').trimEnd().split('\n')).toHaveLength(store.runs.list().length);
  });

  it("exports an evaluation's episodes and turns, as a download and through the desktop dialog, and refuses another run's", async () => {
    const { run, checkpoints } = fixture.runs[2];
    const turn = { observation: 'board', state: {}, response: 'Right', actions: ['Right'], numValidActions: 1, reward: 1, done: true, info: {}, numTokens: 3 };
    const played = (envIndex: number) => ({ envTag: 'frozenlake', groupId: 0, envIndex, seed: 500 + envIndex, totalReward: 1, success: true, numActions: 1, truncated: false, turns: [turn] });
    const evaluation = store.evaluations.insert({ runId: run.id, checkpointId: checkpoints[0].id, iteration: checkpoints[0].iteration, config: {}, overrides: [], metrics: { 'val/success': 1 }, episodes: [0, 1, 2].map(played) });
    const path = `/api/export?what=turns&format=jsonl&runs=${run.id}&evaluation=${evaluation.id}`;
    const reply = await get(path, auth());
    expect(reply.status).toBe(200);
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="turnlab-turns-run-${run.id}-frozenlake-grpo-fork-evaluation-${evaluation.id}.jsonl"`);
    const rows = reply.body.toString('utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { run_id: number; episode_id: number });
    const episodeIds = store.evaluations.episodes(evaluation.id).map((episode) => episode.id);
    expect(rows.map((row) => row.episode_id).sort()).toEqual([...episodeIds].sort());
    expect(rows.every((row) => row.run_id === run.id)).toBe(true);

    saveTo = join(out.dir, 'evaluation-episodes.csv');
    expect(await api.saveExport({ what: 'episodes', format: 'csv', runIds: [run.id], evaluationId: evaluation.id })).toEqual({ path: saveTo, rows: 3 });
    expect(suggestedName).toBe(`turnlab-episodes-run-${run.id}-frozenlake-grpo-fork-evaluation-${evaluation.id}.csv`);
    expect(readFileSync(saveTo, 'utf8').trimEnd().split('\r\n').slice(1).map((line) => Number(line.split(',')[0]))).toEqual(episodeIds);
    saveTo = null;

    // Another run's evaluation, metrics of one, and an unknown one: refused before anything is written, by what is wrong.
    const other = store.runs.allIds().find((id) => id !== run.id)!;
    expect(await refusal(api.saveExport({ what: 'episodes', format: 'csv', runIds: [other], evaluationId: evaluation.id }))).toMatchObject({
      code: 'REFUSED',
      message: expect.stringContaining(`evaluation ${evaluation.id} is of run ${run.id}`),
    });
    expect(await refusal(api.saveExport({ what: 'metrics', format: 'csv', runIds: [run.id], evaluationId: evaluation.id }))).toMatchObject({ code: 'REFUSED' });
    expect(await refusal(api.saveExport({ what: 'turns', format: 'csv', runIds: [run.id], evaluationId: 424242 }))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await get(`/api/export?what=turns&format=csv&runs=${other}&evaluation=${evaluation.id}`, auth())).status).toBe(409);
    expect((await get(`/api/export?what=turns&format=csv&runs=${run.id}&evaluation=424242`, auth())).status).toBe(404);
    expect((await get(`/api/export?what=turns&format=csv&runs=${run.id}&evaluation=0`, auth())).status).toBe(400);
  });

  it('answers bad export queries with 400 or 404', async () => {
    expect((await get('/api/export?what=secrets&format=csv', auth())).status).toBe(400);
    expect((await get('/api/export?what=runs&format=csv&runs=1;DROP', auth())).status).toBe(400);
    expect((await get('/api/export?what=runs&format=csv&runs=424242', auth())).status).toBe(404);
    expect((await get('/api/export?what=runs&format=csv&extra=1', auth())).status).toBe(400);
  });
});

describe('model folder download', () => {
  it('streams a checkpoint folder as a tar that tar extracts byte for byte', async () => {
    const checkpoint = fixture.runs[2].checkpoints[0];
    const folder = join(fixture.dir, checkpoint.path);
    mkdirSync(join(folder, 'tokenizer'), { recursive: true });
    const weights = Buffer.alloc(1500, 7);
    writeFileSync(join(folder, 'weights.bin'), weights);
    writeFileSync(join(folder, 'tokenizer', 'vocab.json'), '{"a":1}');
    expect((await get(`/api/checkpoint-archive?id=${checkpoint.id}`)).status).toBe(401);
    const reply = await get(`/api/checkpoint-archive?id=${checkpoint.id}`, auth());
    expect(reply.status).toBe(200);
    expect(reply.body.length % 512).toBe(0);
    const top = `run-${checkpoint.runId}-iter-${checkpoint.iteration}`;
    const archive = join(out.dir, 'model.tar');
    writeFileSync(archive, reply.body);
    const unpacked = join(out.dir, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xf', archive, '-C', unpacked]);
    expect(readFileSync(join(unpacked, top, 'weights.bin')).equals(weights)).toBe(true);
    expect(readFileSync(join(unpacked, top, 'tokenizer', 'vocab.json'), 'utf8')).toBe('{"a":1}');
    expect((await get('/api/checkpoint-archive?id=999999', auth())).status).toBe(404);
    expect((await get('/api/checkpoint-archive?id=../../etc', auth())).status).toBe(400);
  });
});

describe('events', () => {
  it('reports status changes, new iterations and edits over server-sent events', async () => {
    const runId = fixture.runs[2].run.id;
    const received: TurnLabEvent[] = [];
    const done = new Promise<void>((resolveDone, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: '/api/events', headers: { Host: `127.0.0.1:${server.port}`, ...auth() } },
        (res) => {
          expect(res.headers['content-type']).toMatch(/text\/event-stream/);
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            const frames = buffer.split('\n\n');
            buffer = frames.pop() ?? '';
            for (const frame of frames) {
              const data = frame.split('\n').find((l) => l.startsWith('data: '));
              if (data) received.push(JSON.parse(data.slice(6)) as TurnLabEvent);
            }
            if (received.some((e) => e.type === 'run-iteration') && received.some((e) => e.type === 'run-status')) {
              req.destroy();
              resolveDone();
            }
          });
          // The stream is open: change the store as a trainer would.
          setTimeout(() => {
            store.runs.update(runId, { status: 'running' });
            store.metrics.insert([{ runId, name: 'train/x', iteration: 99, value: 1, wallTime: Date.now() }]);
          }, 120);
        },
      );
      req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
      req.end();
    });
    await done;
    expect(received).toContainEqual({ type: 'run-status', runId, status: 'running' });
    expect(received).toContainEqual({ type: 'run-iteration', runId, iteration: 99 });
    store.runs.update(runId, { status: 'completed' });
  });

  it('diffs fingerprints into events, listing changes first', () => {
    const base = { id: 1, name: 'a', status: 'running' as const, tags: '[]', notes: '', iteration: 3 };
    expect(diffProgress(new Map([[1, base]]), [{ ...base, iteration: 4 }])).toEqual([{ type: 'run-iteration', runId: 1, iteration: 4 }]);
    expect(diffProgress(new Map([[1, base]]), [{ ...base, name: 'b' }])).toEqual([{ type: 'runs-changed' }]);
    expect(diffProgress(new Map([[1, base]]), [])).toEqual([{ type: 'runs-changed' }]);
    expect(diffProgress(new Map(), [base])).toEqual([{ type: 'runs-changed' }, { type: 'run-status', runId: 1, status: 'running' }]);
  });
});

describe('start-up recovery', () => {
  it('marks runs of dead trainers interrupted and leaves live and foreign ones alone', () => {
    const temp = makeTempDir('turnlab-recovery-');
    const own = openStore(temp.dir, { create: true });
    try {
      const make = (name: string, status: 'running' | 'queued' | 'stopping', createdAt = Date.now()) =>
        own.runs.create({ name, config: {}, seed: 1, envTags: [], algorithm: 'grpo', status, createdAt }).id;
      const dead = make('dead', 'running');
      own.runs.setTrainerProcess(dead, deadPid(), hostname());
      const alive = make('alive', 'running');
      own.runs.setTrainerProcess(alive, process.pid, hostname());
      const foreign = make('foreign', 'stopping');
      own.runs.setTrainerProcess(foreign, deadPid(), 'another-host');
      const noPid = make('no-pid', 'running');
      const freshQueued = make('fresh-queued', 'queued');
      const staleQueued = make('stale-queued', 'queued', Date.now() - 3_600_000);
      const finished = make('finished', 'running');
      own.runs.update(finished, { status: 'completed' });

      expect(recoverInterruptedRuns(own).sort()).toEqual([dead, noPid, staleQueued].sort());
      expect(own.runs.get(dead)).toMatchObject({ status: 'interrupted', error: expect.stringMatching(/no longer exists/) });
      expect(own.runs.get(alive)?.status).toBe('running');
      expect(own.runs.get(foreign)?.status).toBe('stopping');
      expect(own.runs.get(freshQueued)?.status).toBe('queued');
      expect(own.runs.get(finished)?.status).toBe('completed');
      expect(recoverInterruptedRuns(own)).toEqual([]);
    } finally {
      own.close();
      temp.cleanup();
    }
  });
});
