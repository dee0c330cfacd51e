// Stored evaluations (migration 0004): an evaluation of a checkpoint keeps its figures, config
// and episodes; its episodes sit at the checkpoint's iteration beside the run's own validation
// episodes without colliding, and never show up among the run's own episodes or exports.
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import type { NewEvaluation } from '../../main/store/types';
import { seedStore, type SeededRun, type TempDir } from '../helpers/fixtures';
import { migrationsSandbox } from './migrations-sandbox';

let temp: TempDir;
let dataDir: string;
let migrationsDir: string;

beforeEach(() => ({ temp, dataDir, migrationsDir } = migrationsSandbox()));
afterEach(() => temp.cleanup());

/** Two episodes of one turn each, at env indexes 0 and 1 (the run's own val episodes use 0..3 too). */
function evaluationOf(run: SeededRun, checkpointIndex = 0): NewEvaluation {
  const checkpoint = run.checkpoints[checkpointIndex];
  const episode = (envIndex: number, success: boolean) => ({
    envTag: 'frozenlake',
    groupId: envIndex,
    envIndex,
    seed: 100 + envIndex,
    totalReward: success ? 1 : 0,
    success,
    numActions: 1,
    truncated: false,
    turns: [{ observation: `board ${envIndex}`, response: '<answer>Right</answer>', actions: ['Right'], numValidActions: 1, reward: success ? 1 : 0, done: true, numTokens: 3 }],
  });
  return {
    runId: run.run.id,
    checkpointId: checkpoint.id,
    iteration: checkpoint.iteration,
    config: { agent_proxy: { max_turn: 5 } },
    overrides: ['actor_rollout_ref.rollout.val_kwargs.do_sample=false'],
    startSeed: 100,
    backend: 'wasm',
    device: 'cpu',
    metrics: { 'val/frozenlake/success': 0.5, 'val/frozenlake/nan': null },
    episodes: [episode(0, true), episode(1, false)],
  };
}

describe('migration 0004 on a database at schema 3', () => {
  it('keeps every episode, turn and id, and the id counter, while adding evaluations', () => {
    // Schema 3: every later migration set aside.
    const later = readdirSync(migrationsDir).filter((name) => Number(name.slice(0, 4)) >= 4);
    for (const name of later) renameSync(join(migrationsDir, name), join(temp.dir, name));
    let store = openStore(dataDir, { create: true, migrationsDir });
    const file = store.file;
    store.close();
    // Rows as schema 3 wrote them (the repositories already speak the newest schema).
    const raw = new Database(file);
    const run = {
      id: Number(raw.prepare(
        `INSERT INTO runs (name, status, created_at, config, config_hash, seed, env_tags, algorithm, tags, notes)
         VALUES ('old', 'queued', 1, '{}', 'hash', 1, '["frozenlake"]', 'grpo', '[]', '')`,
      ).run().lastInsertRowid),
    };
    const episode = raw.prepare(
      `INSERT INTO episodes (run_id, iteration, split, env_tag, group_id, env_index, seed, total_reward, success, num_turns, num_actions, truncated, filtered_out)
       VALUES (?, ?, ?, 'frozenlake', 0, ?, 7, 1, 1, 1, 1, 0, 0)`,
    );
    const turn = raw.prepare(
      `INSERT INTO turns (episode_id, turn_index, observation, response, num_valid_actions, reward, done, num_tokens)
       VALUES (?, 0, 'board', 'Right', 1, 1, 1, 3)`,
    );
    for (let it = 1; it <= 3; it++) {
      for (const split of ['train', 'val']) {
        for (let env = 0; env < 2; env++) turn.run(episode.run(run.id, it, split, env).lastInsertRowid);
      }
    }
    const lastId = (raw.prepare('SELECT MAX(id) AS id FROM episodes').get() as { id: number }).id;
    // The newest episode deleted: its id must not be handed out again after the rebuild.
    raw.prepare('DELETE FROM episodes WHERE id = ?').run(lastId);
    const before = raw.prepare('SELECT * FROM episodes ORDER BY id').all();
    const turnsBefore = (raw.prepare('SELECT COUNT(*) AS n FROM turns').get() as { n: number }).n;
    raw.close();

    for (const name of later) renameSync(join(temp.dir, name), join(migrationsDir, name));
    store = openStore(dataDir, { migrationsDir });
    try {
      const db = new Database(store.file, { readonly: true });
      const after = db.prepare('SELECT * FROM episodes ORDER BY id').all() as Array<Record<string, unknown>>;
      expect(after).toEqual((before as Array<Record<string, unknown>>).map((row) => ({ ...row, evaluation_id: null })));
      expect((db.prepare('SELECT COUNT(*) AS n FROM turns').get() as { n: number }).n).toBe(turnsBefore);
      db.close();
      expect(store.integrityCheck()).toEqual(['ok']);
      // Still unique per (run, iteration, split, tag, env) for the run's own episodes.
      const first = store.episodes.listByIteration(run.id, 1)[0];
      expect(() =>
        store.episodes.insert([{ ...first, turns: [] }]),
      ).toThrow(/UNIQUE/);
      const [fresh] = store.episodes.insert([{ ...first, iteration: 99, turns: [] }]);
      expect(fresh).toBeGreaterThan(lastId);
    } finally {
      store.close();
    }
  });
});

describe('evaluations', () => {
  let store: Store;
  let seeded: SeededRun[];

  beforeEach(() => {
    store = openStore(dataDir, { create: true, migrationsDir });
    seeded = seedStore(store, { iterations: 8, groups: 2, groupSize: 2, valEvery: 4, checkpointEvery: 4 });
  });
  afterEach(() => store.close());

  it('stores an evaluation with its episodes and turns, beside the run\'s own validation episodes', () => {
    const run = seeded[0];
    const iteration = run.checkpoints[0].iteration;
    const ownVal = store.episodes.listByIteration(run.run.id, iteration, { split: 'val' });
    expect(ownVal.length).toBeGreaterThan(0);
    const stored = store.evaluations.insert(evaluationOf(run));
    expect(stored).toMatchObject({
      runId: run.run.id,
      checkpointId: run.checkpoints[0].id,
      iteration,
      numEpisodes: 2,
      overrides: ['actor_rollout_ref.rollout.val_kwargs.do_sample=false'],
      startSeed: 100,
      metrics: { 'val/frozenlake/success': 0.5, 'val/frozenlake/nan': null },
      config: { agent_proxy: { max_turn: 5 } },
    });
    expect(store.evaluations.get(stored.id)).toEqual(stored);
    expect(store.evaluations.listByRun(run.run.id)).toEqual([stored]);

    const episodes = store.evaluations.episodes(stored.id);
    expect(episodes.map((e) => [e.envIndex, e.split, e.iteration, e.success])).toEqual([[0, 'val', iteration, true], [1, 'val', iteration, false]]);
    expect(store.evaluations.episodes(stored.id, { success: false }).map((e) => e.envIndex)).toEqual([1]);
    expect(store.turns.listByEpisode(episodes[0].id).map((t) => t.observation)).toEqual(['board 0']);
    expect(store.episodes.evaluationOf(episodes[0].id)).toBe(stored.id);
    expect(store.episodes.evaluationOf(ownVal[0].id)).toBeNull();

    // The run's own listings, iterations and exports leave the evaluation's episodes out.
    expect(store.episodes.listByIteration(run.run.id, iteration, { split: 'val' })).toEqual(ownVal);
    const exported = [...store.episodes.exportRows([run.run.id])].map((row) => row.id);
    expect(exported).not.toContain(episodes[0].id);
    expect([...store.turns.exportRows([run.run.id])].map((row) => row.episode_id)).not.toContain(episodes[0].id);
    // ...which an export of the evaluation gives alone.
    expect([...store.episodes.exportRows([run.run.id], 1, stored.id)].map((row) => row.id)).toEqual(episodes.map((e) => e.id));
    expect([...store.turns.exportRows([run.run.id], 1, stored.id)].map((row) => [row.episode_id, row.observation])).toEqual([[episodes[0].id, 'board 0'], [episodes[1].id, 'board 1']]);
  });

  it('refuses two episodes of one evaluation at the same env, storing nothing', () => {
    const evaluation = evaluationOf(seeded[0]);
    evaluation.episodes[1].envIndex = 0;
    expect(() => store.evaluations.insert(evaluation)).toThrow(/UNIQUE/);
    expect(store.evaluations.listByRun(seeded[0].run.id)).toEqual([]);
  });

  it('outlives its checkpoint, goes with a resume that drops it, and with its run', () => {
    const run = seeded[0];
    const early = store.evaluations.insert(evaluationOf(run, 0));
    const late = store.evaluations.insert(evaluationOf(run, 1));
    const lateEpisode = store.evaluations.episodes(late.id)[0].id;

    store.checkpoints.remove(run.checkpoints[0].id);
    expect(store.evaluations.get(early.id)).toMatchObject({ checkpointId: null, iteration: run.checkpoints[0].iteration });

    const removed = store.runs.truncateAfter(run.run.id, run.checkpoints[0].iteration);
    expect(removed.evaluations).toBe(1);
    expect(store.evaluations.get(late.id)).toBeUndefined();
    expect(store.episodes.get(lateEpisode)).toBeUndefined();
    expect(store.turns.listByEpisode(lateEpisode)).toEqual([]);

    expect(store.evaluations.delete(early.id)).toBe(true);
    const again = store.evaluations.insert({ ...evaluationOf(seeded[1]), checkpointId: seeded[1].checkpoints[0].id });
    store.runs.delete(seeded[1].run.id);
    expect(store.evaluations.get(again.id)).toBeUndefined();
  });
});
