import { resolve } from 'node:path';
import type { StartSweepRequest, SweepStartedDto } from '../../preload/contract';
import { loadRunConfigWithSource } from '../../trainer-core';
import { acceptedSettings, loadSweepRunConfigs } from './sweep-configs';
import type { Store } from '../store/db';
import type { RunManager } from '../trainer-host/run-manager';
import { submitSlurmSweep } from './slurm-sweep';
import { parseGridAxis, planSweep, skippedLine, sweepTag } from '../../preload/sweep-plan';
import { newSweepName, recordSweepPlan } from './sweep-name';

/**
 * A sweep started from the New run form, as `turnlab sweep` starts it: locally the seed groups
 * queue one after the other on the run manager (each at most `concurrency` at once), on Slurm
 * one array job is submitted. Every run's config is read before anything starts.
 */
export async function startSweep(store: Store, manager: RunManager | undefined, request: StartSweepRequest & { configPath: string }): Promise<SweepStartedDto> {
  // The grid comes as lines (the form's field, an API client's array), not as --grid flags.
  const axes = request.grid.map((line) => parseGridAxis(line, 'form'));
  const overrides = request.overrides ?? [];
  if (request.executor === 'slurm') {
    if (!request.slurm) throw new Error('a Slurm sweep needs a shared folder (remoteDir)');
    const { remoteDir, localDir, ssh, partition, time, cpusPerTask, gres, turnlab, sbatch } = request.slurm;
    const { sweep, arrayJobId, jobs, skipped } = await submitSlurmSweep(store, {
      configPath: request.configPath,
      overrides,
      name: request.name,
      axes,
      gridWords: 'form',
      seeds: request.seeds,
      remoteDir,
      localDir,
      loginHost: ssh ?? null,
      turnlab,
      resources: { partition, time, cpusPerTask, gres, extra: sbatch },
    });
    return { groups: [...new Set(jobs.map((j) => j.seedGroup))], runs: jobs.length, sweep, arrayJobId, skipped: skipped.map((one) => skippedLine(axes, one)) };
  }
  if (!manager) throw new Error('this server cannot start runs');
  const configPath = resolve(request.configPath);
  const base = request.name ?? loadRunConfigWithSource(configPath, overrides).cfg.trainer.experiment_name;
  const { settings, skipped } = await acceptedSettings(configPath, overrides, axes, 'form');
  const plan = planSweep(base, settings, request.seeds, []);
  loadSweepRunConfigs(configPath, overrides, plan.runs, axes);
  const sweep = newSweepName(store, base);
  recordSweepPlan(store, sweep, axes, request.seeds, 'local', skipped);
  const groups: string[] = [];
  // Each group starts when the one before has ended, so the machine trains `concurrency` at a time.
  const startGroup = (index: number): Promise<void> => {
    const setting = settings[index];
    const group = manager.startSeedGroup(
      { configPath, overrides: [...overrides, ...setting.overrides], name: setting.label ? `${base}-${setting.label}` : base, seeds: request.seeds, tags: [sweepTag(sweep)] },
      { concurrency: request.concurrency },
    );
    groups.push(group.group);
    // A group stopped (Stop on the sweep, its group or a run, turnlab stop) stops the sweep: the
    // settings after it never start, as a sweep in a terminal stops whole on Ctrl-C.
    const stopped = (outcomes: ReadonlyArray<{ status: string }>) => group.wasStopped() || outcomes.some((o) => o.status === 'stopped');
    if (index + 1 < settings.length) void group.done.then((outcomes) => (stopped(outcomes) ? undefined : startGroup(index + 1)));
    return group.firstRunId.then(() => undefined);
  };
  await startGroup(0);
  return { groups: settings.map((s, i) => groups[i] ?? (s.label ? `${base}-${s.label}` : base)), runs: plan.runs.length, sweep, arrayJobId: null, skipped: skipped.map((one) => skippedLine(axes, one)) };
}
