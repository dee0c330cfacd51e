// Training again from a past run's config (W&B's rerun, MLflow's reproduce): `turnlab train
// --config run:<run>` trains with exactly the config that run trained with, overrides on top, and
// with the same seed, backend and worker count gives the same run; `turnlab show <run> --config`
// prints that config as YAML the loader reads back.
import { readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConfigYaml } from '../../main/services/run-config-file';
import { openStore } from '../../main/store/db';
import { loadRunConfig, parseRunConfigWithSource } from '../../trainer-core/config';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

let data: TempDir;
const turnlab = (args: string[]) => runTurnlabInProcess(args, { dataDir: data.dir });

function stored(runId: number) {
  const store = openStore(data.dir);
  try {
    const run = store.runs.get(runId)!;
    const metrics = store.metrics.latest(runId).filter((m) => !/^(timing_s|perf)\//.test(m.name) || m.name.startsWith('perf/total_'));
    return { run, metrics: Object.fromEntries(metrics.map((m) => [m.name, m.value])) };
  } finally {
    store.close();
  }
}

describe('train --config run:<run>', () => {
  beforeAll(async () => {
    data = makeTempDir('turnlab-rerun-');
    const first = await turnlab(['train', '--config', join(repoRoot, 'configs/bandit.yaml'), ...TINY_TRAIN, '--set', 'trainer.total_training_steps=2', '--name', 'original']);
    expect(first.stderr.split('\n').filter((l) => l.startsWith('turnlab:'))).toEqual([]);
    expect(first.code).toBe(0);
    // The run's summary under its last line: the final and best validation success, and the optimum.
    const store = openStore(data.dir);
    try {
      const series = store.metrics.series(1, 'val/Bandit/success');
      const final = series.at(-1)!;
      const best = series.reduce((a, b) => ((b.value as number) > (a.value as number) ? b : a));
      expect(first.stdout).toBe(
        'run 1 (original) completed at iteration 2\n' +
          `  val/Bandit/success: ${(final.value as number).toFixed(3)} at iteration ${final.iteration} (best ${(best.value as number).toFixed(3)} at iteration ${best.iteration}; the optimal policy 1.000)\n`,
      );
    } finally {
      store.close();
    }
  }, 120_000);

  afterAll(() => data?.cleanup());

  it('trains the same run again from the stored config, and the same config with an override', async () => {
    const again = await turnlab(['train', '--config', 'run:original', '--name', 'again']);
    expect(again.code).toBe(0);
    const [original, rerun] = [stored(1), stored(2)];
    expect(rerun.run.name).toBe('again');
    expect(rerun.run.config).toEqual(original.run.config);
    expect(rerun.run.configHash).toBe(original.run.configHash);
    // Same seed, backend and worker count: the same run.
    expect(rerun.metrics).toEqual(original.metrics);
    expect(Object.keys(rerun.metrics)).toEqual(expect.arrayContaining(['actor/pg_loss', 'train/Bandit/reward', 'val/Bandit/success']));
    // The file it trained from stays in the data folder's configs/, beside the workbench's edited ones.
    expect(readdirSync(join(data.dir, 'configs'))).toEqual([expect.stringMatching(/^run-1-.*\.yaml$/)]);

    const changed = await turnlab(['train', '--config', 'run:1', 'actor_rollout_ref.actor.optim.lr=0.003', '--name', 'lr']);
    expect(changed.code).toBe(0);
    const diff = await turnlab(['diff', '1', '3', '--json']);
    expect((JSON.parse(diff.stdout) as { rows: Array<{ key: string; values: unknown[] }> }).rows).toEqual([
      { key: 'actor_rollout_ref.actor.optim.lr', values: [original.run.config.actor_rollout_ref?.actor?.optim?.lr, 0.003], differs: true },
    ]);
  }, 120_000);

  it('prints the config as YAML the loader reads, and names a run that is not there', async () => {
    const shown = await turnlab(['show', '1', '--config']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^# The resolved config of run 1 \(original\)/);
    expect(parseYaml(shown.stdout)).toEqual(stored(1).run.config);

    const missing = await turnlab(['train', '--config', 'run:99']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("turnlab: unknown run '99' (no run has that id or name; see 'turnlab runs')\n");
  });

  it("reads every shipped config's stored form back as the same config", () => {
    const shipped = readdirSync(join(repoRoot, 'configs')).filter((file) => file.endsWith('.yaml'));
    expect(shipped.length).toBeGreaterThan(5);
    const differing = shipped.filter((file) => {
      const config = loadRunConfig(join(repoRoot, 'configs', file));
      const again = parseRunConfigWithSource(parseYaml(runConfigYaml({ id: 1, name: file, config })), file).cfg;
      return !isDeepStrictEqual(again, config);
    });
    expect(differing).toEqual([]);
  });
});
