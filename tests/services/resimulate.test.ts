// Re-simulation against episodes from real rollouts: a tiny FrozenLake run trained in-process
// into the store, and scripted rollouts (slippery FrozenLake, Sokoban) through the real
// env-state manager, stored the way the trainer reports them. Tampered copies must fail.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import type { NewEpisode } from '../../main/store/types';
import { replaySettings, resimulateEpisode, ResimulateError } from '../../main/services/resimulate';
import { newEpisode, StoreSink } from '../../main/trainer-host/store-sink';
import { loadRunConfig, parseRunConfig, type RunConfig } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout, type EpisodeRecord } from '../../trainer-core/rollout/rollout-loop';
import { episodeReport } from '../../trainer-core/train/episode-report';
import { train } from '../../trainer-core/train/trainer';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { CharTokenizer, ScriptedGenerator } from '../rollout/helpers';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';

const root = join(import.meta.dirname, '../..');
let temp: TempDir;
let store: Store;

/** What the trainer stores of a rollout episode, for scripted rollouts: its own report, through the store sink's mapping. */
function toNewEpisode(runId: number, e: EpisodeRecord): NewEpisode {
  return newEpisode(runId, episodeReport(e, 1, false, null));
}

function scriptedConfig(): RunConfig {
  return parseRunConfig(
    {
      model: { context_length: 8192 },
      actor_rollout_ref: { rollout: { response_length: 120 } },
      agent_proxy: { max_turn: 5, max_actions_per_turn: 4 },
      es_manager: {
        format_penalty: -0.1,
        train: { env_groups: 4, group_size: 2, env_configs: { tags: ['Lake', 'Boxes'], n_groups: [2, 2] } },
        val: { env_groups: 1, group_size: 1, env_configs: { tags: ['Lake'], n_groups: [1] } },
      },
      custom_envs: {
        // Gym's layout: the tampering cases below were chosen on its boards (a swapped move that changes the outcome).
        Lake: { env_type: 'frozen_lake', max_actions_per_traj: 10, env_config: { is_slippery: true, random_start: false, random_goal: false } },
        Boxes: { env_type: 'sokoban', max_actions_per_traj: 8 },
      },
    },
    'scripted',
  );
}

async function scriptedEpisodes(runId: number, cfg: RunConfig): Promise<number[]> {
  const tok = new CharTokenizer();
  const rng = new Rng(5);
  const words = ['Up', 'down', 'Left', 'Right', 'Jump'];
  const reply = () => {
    if (rng.next() < 0.1) return 'no tags at all';
    const actions = Array.from({ length: 1 + rng.int(4) }, () => rng.choice(words));
    return `<think>try</think><answer>${actions.join(' || ')}</answer>`;
  };
  const result = await runRollout({
    esManager: new EnvStateManager(cfg, 'train'),
    contextManager: createContextManager(cfg, tok),
    tokenizer: tok,
    generator: new ScriptedGenerator(tok, reply),
    settings: rolloutSettingsFromConfig(cfg, 'train'),
  });
  const ids = store.episodes.insert(result.episodes.map((e) => toNewEpisode(runId, e)));
  // The rollout's own state after each episode's last turn, which the store does not keep.
  result.episodes.forEach((e, i) => rolloutFinalStates.set(ids[i], JSON.parse(JSON.stringify(e.turns[e.turns.length - 1].state))));
  return ids;
}

const rolloutFinalStates = new Map<number, unknown>();

let trainedRunId: number;
let scriptedRunId: number;
let scriptedIds: number[];

beforeAll(async () => {
  temp = makeTempDir('turnlab-resim-');
  store = openStore(temp.dir, { create: true });

  const trained = loadRunConfig(join(root, 'configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=1']);
  const run = store.runs.create({ name: 'tiny-lake', config: trained, seed: trained.trainer.seed, envTags: ['FrozenLakeNonSlip'], algorithm: 'grpo' });
  trainedRunId = run.id;
  const result = await train({ config: trained, sink: new StoreSink(store, run.id), checkpointDir: join(temp.dir, 'ckpt') });
  expect(result.status).toBe('completed');

  const scripted = scriptedConfig();
  scriptedRunId = store.runs.create({ name: 'scripted', config: scripted, seed: 1, envTags: ['Lake', 'Boxes'], algorithm: 'grpo' }).id;
  scriptedIds = await scriptedEpisodes(scriptedRunId, scripted);
}, 120_000);

afterAll(() => {
  store?.close();
  temp?.cleanup();
});

function episodesOf(runId: number): number[] {
  return store.episodes
    .iterations(runId)
    .flatMap((iteration) => store.episodes.listByIteration(runId, iteration, {}))
    .map((e) => e.id);
}

describe('resimulateEpisode', () => {
  it('reproduces every train and validation episode of a real training run', async () => {
    const ids = episodesOf(trainedRunId);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    let actionsSeen = 0;
    for (const id of ids) {
      const verdict = await resimulateEpisode(store, id);
      expect(verdict.summary).toMatch(/^reproduced/);
      expect(verdict.reproduced).toBe(true);
      expect(verdict.turns).toHaveLength(store.episodes.get(id)!.numTurns);
      actionsSeen += verdict.turns.reduce((n, t) => n + t.executedActions.length, 0);
    }
    // The warm-started model writes actions, so the replay moved the player, not only read states.
    expect(actionsSeen).toBeGreaterThan(0);
  });

  it('reproduces scripted slippery FrozenLake and Sokoban episodes with invalid and cut actions', async () => {
    const verdicts = await Promise.all(scriptedIds.map((id) => resimulateEpisode(store, id)));
    expect(verdicts.every((v) => v.reproduced)).toBe(true);
    // The re-run ends in the state the rollout itself ended in after the last action.
    verdicts.forEach((v, i) => expect(v.finalState).toEqual(rolloutFinalStates.get(scriptedIds[i])));
    const all = verdicts.flatMap((v) => v.turns);
    expect(all.some((t) => t.storedReward < 0)).toBe(true);
    expect(all.some((t) => t.executedActions.length > 1)).toBe(true);
  });

  it('says not reproduced when a stored action, reward or seed was altered', async () => {
    const id = scriptedIds.find((e) => store.turns.listByEpisode(e).some((t) => t.numValidActions > 0))!;
    const original = store.episodes.get(id)!;
    const turns = store.turns.listByEpisode(id);
    let copies = 0;
    const copy = (patch: (e: NewEpisode) => void): number => {
      copies += 1;
      const episode: NewEpisode = {
        ...original,
        // A distinct iteration per copy: (run, iteration, split, tag, env) is unique.
        iteration: 100 + copies,
        turns: turns.map((t) => ({ ...t, turnIndex: t.turnIndex })),
      };
      patch(episode);
      return store.episodes.insert([episode])[0];
    };
    const untouched = copy(() => {});
    expect((await resimulateEpisode(store, untouched)).reproduced).toBe(true);

    const target = turns.findIndex((t) => t.numValidActions > 0);
    const swapped = copy((e) => {
      const t = e.turns[target];
      t.actions = t.actions.map((a) => ({ up: 'Down', down: 'Up', left: 'Right', right: 'Left' })[a.toLowerCase()] ?? a);
    });
    const rewardChanged = copy((e) => {
      e.turns[0].reward += 0.5;
    });
    const seedChanged = copy((e) => {
      e.seed += 1;
    });
    for (const tampered of [swapped, rewardChanged, seedChanged]) {
      const verdict = await resimulateEpisode(store, tampered);
      expect(verdict.reproduced).toBe(false);
      expect(verdict.summary).toMatch(/^not reproduced/);
    }
    const rewardVerdict = await resimulateEpisode(store, rewardChanged);
    expect(rewardVerdict.turns[0]).toMatchObject({ rewardMatches: false, observationMatches: true });
    expect(rewardVerdict.summary).toContain('turn 1: reward');
  });

  it('refuses an episode whose run config cannot rebuild the env, naming what is missing', async () => {
    const run = store.runs.create({ name: 'no-config', config: { custom_envs: {} }, seed: 1, envTags: ['x'], algorithm: 'grpo' });
    const [id] = store.episodes.insert([
      { runId: run.id, iteration: 1, split: 'train', envTag: 'x', groupId: 0, envIndex: 0, seed: 1, totalReward: 0, success: false, numActions: 0, truncated: true, turns: [] },
    ]);
    await expect(resimulateEpisode(store, id)).rejects.toThrow(ResimulateError);
    await expect(resimulateEpisode(store, id)).rejects.toThrow(/agent_proxy/);
    await expect(resimulateEpisode(store, 999_999)).rejects.toThrow(/unknown episode 999999/);
  });
});

describe('replaySettings and the API', () => {
  it('gives the action names and the compact template reply prefix', async () => {
    const settings = await replaySettings(store, trainedRunId, 'FrozenLakeNonSlip');
    expect(settings).toMatchObject({ envType: 'frozen_lake', responsePrefix: '<answer>', enableThink: false, multiAction: true });
    expect(settings.actionNames?.map((n) => n.toLowerCase()).sort()).toEqual(['down', 'left', 'right', 'up']);
    await expect(replaySettings(store, trainedRunId, 'Nope')).rejects.toThrow(/no env tag 'Nope'.*FrozenLakeNonSlip/);
  });

  it('answers resimulateEpisode and replaySettings through the validated API', async () => {
    const api = createApi(store, { version: 'test' });
    const verdict = (await api.call('resimulateEpisode', [scriptedIds[0]])) as { reproduced: boolean };
    expect(verdict.reproduced).toBe(true);
    await expect(api.call('resimulateEpisode', ['1'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(api.call('resimulateEpisode', [987_654])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.call('replaySettings', [scriptedRunId, 'Missing'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    const settings = (await api.call('replaySettings', [scriptedRunId, 'Boxes'])) as { responsePrefix: string; envType: string };
    expect(settings).toMatchObject({ envType: 'sokoban', responsePrefix: '<think>' });
  });
});
