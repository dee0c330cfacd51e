// A run keeps what its trainers logged (main/services/run-log.ts, migration 0009): the backend
// chosen before the run's row existed comes first, a resume adds its own lines after, the API
// pages them from the last line a reader holds, and they go with the run when it is deleted. A
// store that cannot take a line does not stop it being printed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { deleteRun } from '../../main/services/run-admin';
import { runLogger } from '../../main/services/run-log';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

let data: TempDir;
let store: Store;

beforeAll(async () => {
  data = makeTempDir('turnlab-run-log-');
  const trained = await runTurnlabInProcess(['train', '--config', join(repoRoot, 'configs/bandit.yaml'), ...TINY_TRAIN, '--set', 'trainer.total_training_steps=2'], { dataDir: data.dir });
  expect(trained.code).toBe(0);
  store = openStore(data.dir);
}, 120_000);

afterAll(() => {
  store?.close();
  data?.cleanup();
});

describe('run logs', () => {
  it('keeps the lines a run logged, the backend chosen before the run existed first, and a resume after them', async () => {
    const lines = store.logs.list(1).map((l) => l.line);
    expect(lines[0]).toMatch(/^backend: wasm on CPU/);
    expect(lines).toContainEqual(expect.stringMatching(/^warm start \(random-valid\): 3 steps/));
    const resumed = await runTurnlabInProcess(['resume', '1', '--set', 'trainer.total_training_steps=3'], { dataDir: data.dir });
    expect(resumed.code).toBe(0);
    const after = store.logs.list(1).map((l) => l.line);
    expect(after.slice(0, lines.length)).toEqual(lines);
    expect(after.slice(lines.length)[0]).toMatch(/^backend: wasm on CPU/);
    // What the terminal printed is what was kept, and `turnlab show --log` prints it back; the
    // code each trainer ran is kept, once a start, without being printed.
    const code = /^code: turnlab \d+\.\d+\.\d+, (git [0-9a-f]{12}( with uncommitted changes)?|not a git checkout), Node v\d+\.\d+\.\d+, \w+ \w+, host \S+$/;
    expect(lines.filter((l) => l.startsWith('code: '))).toEqual([expect.stringMatching(code)]);
    expect(after.slice(lines.length).filter((l) => l.startsWith('code: '))).toEqual([expect.stringMatching(code)]);
    for (const line of after.slice(lines.length)) if (!line.startsWith('code: ')) expect(resumed.stderr).toContain(line);
    expect(resumed.stderr).not.toContain('code: ');
    // The same lines as JSON, for scripts.
    const json = JSON.parse((await runTurnlabInProcess(['show', '1', '--log', '--json'], { dataDir: data.dir })).stdout) as Array<{ at: string; line: string }>;
    expect(json.map((entry) => entry.line)).toEqual(after);
    expect(json[0].at).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    // `turnlab show` names the code of the latest start.
    expect((await runTurnlabInProcess(['show', '1'], { dataDir: data.dir })).stdout).toContain(`\n${after.filter((l) => l.startsWith('code: ')).at(-1)}\n`);
    const shown = await runTurnlabInProcess(['show', '1', '--log'], { dataDir: data.dir });
    expect(shown.stdout.trimEnd().split('\n').map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, ''))).toEqual(after);
  }, 120_000);

  it('pages the lines after the last one a reader holds, and deletes them with the run', async () => {
    const api = createApi(store, { version: 'test' });
    const all = await api.runLog(1);
    expect(all.length).toBeGreaterThan(2);
    expect(await api.runLog(1, all[1].id)).toEqual(all.slice(2));
    expect(await api.runLog(1, all.at(-1)!.id)).toEqual([]);
    await expect(api.runLog(99)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await deleteRun(store, 1, new Set());
    expect(store.logs.list(1)).toEqual([]);
  });

  it('prints a line the store cannot take, and holds lines until the run exists', () => {
    const scratch = makeTempDir('turnlab-run-log-closed-');
    const closed = openStore(scratch.dir, { create: true });
    const run = closed.runs.create({ name: 'r', config: {}, seed: 0, envTags: [], algorithm: 'grpo' });
    const printed: string[] = [];
    const logger = runLogger(closed, (line) => printed.push(line));
    logger.log('before the run');
    expect(closed.logs.list(run.id)).toEqual([]);
    logger.attach(run.id);
    expect(closed.logs.list(run.id).map((l) => l.line)).toEqual(['before the run']);
    closed.close();
    expect(() => logger.log('after the store closed')).not.toThrow();
    expect(printed).toEqual(['before the run', 'after the store closed']);
    scratch.cleanup();
  });
});
