import { hostname } from 'node:os';
import { loadRunConfigWithSource } from '../../trainer-core';
import type { Store } from '../store/db';
import type { SeedQueueOwner } from '../store/repositories/seed-queue';
import { freshGroupName, seedGroupOf, seedGroupTag, seedRunName } from '../../preload/seed-list';
import { checkNewRunLabels, RunLabelError, tagsProblem } from '../../preload/run-labels';

/**
 * Planning a seed group: the `turnlab train` arguments of each of its runs. The runs differ only
 * by `trainer.seed` (the last override, so it wins over any given one), are named
 * `<name>-s<seed>` and carry the group's tag. The CLI and the workbench both start groups
 * through RunManager.startSeedGroup, which queues these commands.
 */

export interface SeedGroupRequest {
  configPath: string;
  overrides?: string[];
  /** Base of the run names and of the group's name; the config's experiment name by default. */
  name?: string;
  seeds: number[];
  /** More tags for every run of the group (a sweep's), after the group's own. */
  tags?: string[];
}

export interface SeedRunPlan {
  seed: number;
  name: string;
  /** `turnlab` arguments after the data folder. */
  args: string[];
}

export interface SeedGroupPlan {
  group: string;
  runs: SeedRunPlan[];
}

/** Reads the config first, so a bad key or value refuses the whole group before any run starts. */
export function planSeedGroup(store: Store, request: SeedGroupRequest): SeedGroupPlan {
  const overrides = request.overrides ?? [];
  const base = request.name ?? loadRunConfigWithSource(request.configPath, overrides).cfg.trainer.experiment_name;
  // A group still waiting to start its first run has no run yet, only its queue's rows.
  const taken = [
    ...store.runs.progress().flatMap((r) => {
      const group = seedGroupOf(JSON.parse(r.tags) as string[]);
      return group === null ? [] : [group];
    }),
    ...store.seedQueue.groups(),
  ];
  const group = freshGroupName(base, taken);
  const source = request.name === undefined ? 'trainer.experiment_name' : '--name';
  // Checked here, not by each seed's trainer: one refusal before any run starts.
  const groupTagProblem = tagsProblem([seedGroupTag(group)]);
  if (groupTagProblem !== null) throw new RunLabelError(`${source} (the group's tag ${seedGroupTag('<name>')} is made from it): ${groupTagProblem}`);
  const runs = request.seeds.map((seed) => {
    const name = seedRunName(base, seed);
    checkNewRunLabels(name, request.tags ?? [], source);
    const sets = [...overrides, `trainer.seed=${seed}`].flatMap((o) => ['--set', o]);
    return { seed, name, args: ['train', '--config', request.configPath, ...sets, '--name', name, ...[seedGroupTag(group), ...(request.tags ?? [])].flatMap((t) => ['--tag', t])] };
  });
  return { group, runs };
}

/** The mean of the `val/<tag>/success` metrics at their last iteration; null when none was logged. */
export function finalValSuccess(store: Store, runId: number): number | null {
  const values = store.metrics
    .latest(runId)
    .filter((m) => /^val\/[^/]+\/success$/.test(m.name) && m.value !== null)
    .map((m) => m.value as number);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** When this process started, read once: the queue's rows name their owner by pid and start. */
const STARTED_AT = Math.round(Date.now() - process.uptime() * 1000);

/** This process as the owner of the seeds it queues. */
export function thisProcessOwner(): SeedQueueOwner {
  return { pid: process.pid, host: hostname(), startedAt: STARTED_AT };
}
