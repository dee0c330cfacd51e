// Evaluations are kept (issue 21.8): `turnlab eval` of a real trained checkpoint, run the way the
// workbench runs it (a child process), stores its figures, config and episodes; the API lists them
// under the run, gives back the episodes with their turns, and re-simulates an evaluation's
// episode from the evaluation's own config to the state after its last action.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { evaluateInChildProcess } from '../../main/services/evaluation';
import { resimulateEpisode } from '../../main/services/resimulate';
import { openStore, type Store } from '../../main/store/db';
import { nodeTrainerLauncher } from '../../main/trainer-host/trainer-process';
import type { EpisodeDto, StoredEvaluationDto, TurnDto } from '../../preload/contract';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { repoRoot } from '../helpers/turnlab-cli';

const GREEDY = 'actor_rollout_ref.rollout.val_kwargs.do_sample=false';

let data: TempDir;
let store: Store;
let api: Api;
let checkpointId: number;

describe('stored evaluations of a trained checkpoint', () => {
  beforeAll(() => {
    data = makeTempDir('turnlab-evaluations-');
    const sets = [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=1'].flatMap((s) => ['--set', s]);
    execFileSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), 'train', '--data-dir', data.dir, '--config', 'configs/frozenlake-nonslip.yaml', ...sets], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    store = openStore(data.dir);
    api = createApi(store, { version: 'test' });
    checkpointId = store.checkpoints.latest(1)!.id;
  }, 120_000);

  afterAll(() => {
    store?.close();
    data?.cleanup();
  });

  it('stores what the workbench evaluation played, and lists it under the run', async () => {
    const launch = nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repoRoot, 'bin/turnlab.js'), env: process.env });
    const result = await evaluateInChildProcess(launch, data.dir, { checkpointId, episodes: 3 });
    expect(result).toMatchObject({ checkpoint: checkpointId, runId: 1, episodes: 3 });

    const listed = (await api.listEvaluations(1)) as StoredEvaluationDto[];
    expect(listed.map((e) => e.id)).toEqual([result.evaluationId]);
    expect(listed[0]).toMatchObject({ checkpointId, iteration: result.iteration, numEpisodes: 3, overrides: [], startSeed: null, backend: 'wasm' });
    expect(listed[0].metrics).toEqual(result.metrics);
    // The list carries the figures, not the whole config.
    expect(listed[0]).not.toHaveProperty('config');
    expect(await api.getEvaluation(result.evaluationId)).toEqual(listed[0]);

    const episodes = (await api.listEvaluationEpisodes(result.evaluationId)) as EpisodeDto[];
    expect(episodes).toHaveLength(3);
    expect(episodes.every((e) => e.split === 'val' && e.iteration === result.iteration)).toBe(true);
    const successRate = episodes.filter((e) => e.success).length / episodes.length;
    expect(successRate).toBeCloseTo(result.metrics['val/FrozenLakeNonSlip/success'], 9);
    const turns = (await api.episodeTurns(episodes[0].id)) as TurnDto[];
    expect(turns).toHaveLength(episodes[0].numTurns);
    // The run's own validation episodes at that iteration are not mixed with the evaluation's.
    const own = (await api.listEpisodes(1, result.iteration, { split: 'val' })) as EpisodeDto[];
    expect(own.map((e) => e.id)).not.toContain(episodes[0].id);
  });

  it('keeps an evaluation with overrides and re-simulates its episodes to the state after the last action', () => {
    const printed = execFileSync(
      process.execPath,
      [join(repoRoot, 'bin/turnlab.js'), '--data-dir', data.dir, 'eval', `ckpt:${checkpointId}`, '--episodes', '2', '--seed', '500', '--set', GREEDY, '--json'],
      { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const report = JSON.parse(printed) as { evaluationId: number };
    const stored = store.evaluations.get(report.evaluationId)!;
    expect(stored).toMatchObject({ overrides: [GREEDY], startSeed: 500, numEpisodes: 2 });
    expect((stored.config as { actor_rollout_ref: { rollout: { val_kwargs: { do_sample: boolean } } } }).actor_rollout_ref.rollout.val_kwargs.do_sample).toBe(false);
    expect(store.evaluations.listByRun(1).map((e) => e.id)).toContain(report.evaluationId);

    return Promise.all(
      store.evaluations.episodes(report.evaluationId).map(async (episode) => {
        const verdict = await resimulateEpisode(store, episode.id, { baseDir: repoRoot });
        expect(verdict.reproduced).toBe(true);
        // The state after the last action: on the goal for a success, still playing or in a hole else.
        expect(verdict.finalState).toMatchObject({ kind: 'grid' });
        const status = (verdict.finalState as { status: string }).status;
        expect(episode.success ? status === 'reached-goal' : status !== 'reached-goal').toBe(true);
        expect(verdict.finalObservation).toMatch(/G|P/);
      }),
    );
  });

  it('says in its table output which evaluation it stored', () => {
    const printed = execFileSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), '--data-dir', data.dir, 'eval', '1', '--episodes', '2'], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const stored = /^checkpoint \d+ \(run 1, iteration \d+\): 2 episodes, stored as evaluation (\d+)$/m.exec(printed);
    expect(stored).not.toBeNull();
    expect(store.evaluations.get(Number(stored![1]))).toMatchObject({ checkpointId, numEpisodes: 2, overrides: [] });
  });

  it('refuses an unknown evaluation', async () => {
    await expect(api.call('getEvaluation', [987])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.call('listEvaluationEpisodes', [987])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(api.call('listEvaluations', [987])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
