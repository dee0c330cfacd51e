import { checkpointIterationText } from '../../preload/checkpoint-kind';
import type { Command } from 'commander';
import type { StoredEvaluationDto } from '../../preload/contract';
import type { CheckpointRecord, LatestMetric, RunSummary } from '../store/types';
import { formatTags, formatTime, formatValue, renderTable } from './format';
import { markAbandonedRuns } from '../services/run-owner';
import { statusText } from './runs';
import { withStore } from './with-store';
import { UserError } from './errors';
import type { Store } from '../store/db';

function describeRun(run: RunSummary, code: string | null): string {
  const lines = [
    `run ${run.id}: ${run.name} (${statusText(run)})`,
    `env: ${run.envTags.join(', ') || '-'}   algorithm: ${run.algorithm}   seed: ${run.seed}`,
    `backend: ${run.backend ?? '-'}   device: ${run.device ?? '-'}   config hash: ${run.configHash.slice(0, 12)}`,
    `code: ${code ?? '- (trained before TurnLab recorded it)'}`,
    `created ${formatTime(run.createdAt)}   started ${formatTime(run.startedAt)}   finished ${formatTime(run.finishedAt)}`,
  ];
  if (run.parentRunId !== null) {
    const at = run.parentIteration === null ? '' : ` at iteration ${run.parentIteration}`;
    const checkpoint = run.parentCheckpointId === null ? '' : ` (checkpoint ${run.parentCheckpointId})`;
    lines.push(`continues run ${run.parentRunId}${at}${checkpoint}`);
  }
  if (run.tags.length) lines.push(`tags: ${formatTags(run.tags)}`);
  if (run.notes) lines.push(`notes: ${run.notes}`);
  if (run.error) lines.push(`error: ${run.error}`);
  return lines.join('\n');
}

/** The run's checkpoints as `resume`, `eval` and `export-model` name them (ckpt:<id>: the store's id, not the iteration). */
function checkpointsTable(checkpoints: readonly CheckpointRecord[]): string {
  if (checkpoints.length === 0) return 'none saved (trainer.save_freq; warm_start.save_checkpoint for a warm start alone)';
  return renderTable(
    ['checkpoint', 'iteration', 'saved', 'folder'],
    checkpoints.map((c) => [`ckpt:${c.id}`, checkpointIterationText(c), formatTime(c.createdAt), c.path]),
  );
}

/** The run's stored evaluations, as `export <run> --evaluation N` names them (their ids change on `import`). */
function evaluationsTable(evaluations: readonly StoredEvaluationDto[]): string {
  if (evaluations.length === 0) return 'none stored (turnlab eval, or Evaluate in the Checkpoints view)';
  const success = (metrics: StoredEvaluationDto['metrics']) => {
    const rates = Object.entries(metrics).filter(([name]) => name.endsWith('/success'));
    if (rates.length === 1) return formatValue(rates[0][1]);
    return rates.map(([name, value]) => `${name.split('/').at(-2)} ${formatValue(value)}`).join(', ') || '-';
  };
  return renderTable(
    ['evaluation', 'checkpoint', 'iteration', 'played', 'episodes', 'success', 'overrides'],
    evaluations.map((e) => [
      e.id,
      e.checkpointId === null ? '- (deleted)' : `ckpt:${e.checkpointId}`,
      e.iteration,
      formatTime(e.createdAt),
      e.startSeed === null ? e.numEpisodes : `${e.numEpisodes} from seed ${e.startSeed}`,
      success(e.metrics),
      e.overrides.join(' ') || '-',
    ]),
  );
}

function metricsTable(metrics: LatestMetric[]): string {
  if (metrics.length === 0) return 'no metrics recorded yet';
  return renderTable(
    ['metric', 'iteration', 'value'],
    metrics.map((m) => [m.name, m.iteration, formatValue(m.value)]),
  );
}

async function followCommand(store: Store, ref: string): Promise<void> {
  const { followRun } = await import('./follow-run');
  const runId = store.runs.resolve(ref).id;
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.on('SIGINT', onSigint);
  try {
    const ended = await followRun(store, runId, { write: (line) => process.stdout.write(`${line}\n`), signal: stop.signal });
    if (ended === null && stop.signal.aborted) process.stderr.write(`stopped following; run ${runId} goes on (turnlab stop ${runId} stops it)\n`);
    // A script waiting on a run (`turnlab show 7 --follow && ...`) learns that it did not end well.
    if (ended === 'failed' || ended === 'interrupted') throw new UserError(`run ${runId} ${ended}`);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

export function register(program: Command): void {
  program
    .command('show')
    .description("print a run's config and latest metrics")
    .argument('<run>', 'run id or unique run name')
    .option('--json', 'print {run, latestMetrics, checkpoints, evaluations} as JSON (with --log, the lines as [{at, line}])')
    .option('--config', 'print only the resolved config, as YAML that `turnlab train --config` reads (train --config run:<run> does it in one step)')
    .option('--log', "print only the lines the run's trainers logged (the backend, warnings), with their times")
    .option('--follow', 'follow a run training elsewhere (the workbench, another terminal): a line per iteration and its log, from its latest iteration until it ends; Ctrl-C stops following, not the run')
    .action(async (ref: string, options: { json?: boolean; config?: boolean; log?: boolean; follow?: boolean }, command: Command) => {
      // Each prints a view of its own; only the log's also reads as JSON.
      const views = (['config', 'log', 'follow'] as const).filter((o) => options[o]);
      if (views.length > 1) throw new UserError(`--${views.join(' and --')} each print a view of their own; give one`);
      if (options.json && options.config) throw new UserError('--config prints YAML to train from; `turnlab show <run> --json` holds the config as JSON');
      if (options.follow) {
        if (options.json) throw new UserError('--follow prints lines as the run goes; leave out --json');
        await withStore(command, (store) => followCommand(store, ref), { reader: true });
        return;
      }
      const { stringify: toYaml } = await import('yaml');
      const { runConfigYaml } = await import('../services/run-config-file');
      const { lastCodeVersion } = await import('../services/code-version');
      await withStore(command, (store) => {
        markAbandonedRuns(store);
        const run = store.runs.summary(store.runs.resolve(ref).id)!;
        if (options.config) {
          process.stdout.write(runConfigYaml(run));
          return;
        }
        if (options.log) {
          const lines: Array<{ at: string; line: string }> = [];
          for (let after = 0; ; ) {
            const page = store.logs.list(run.id, after);
            if (page.length === 0) break;
            const read = page.map((entry) => ({ at: new Date(entry.at).toISOString(), line: entry.line }));
            if (options.json) lines.push(...read);
            else process.stdout.write(read.map((entry) => `${entry.at} ${entry.line}\n`).join(''));
            after = page[page.length - 1].id;
          }
          if (options.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
          return;
        }
        const latestMetrics = store.metrics.latest(run.id);
        const checkpoints = store.checkpoints.listByRun(run.id);
        // Each evaluation's config is the run's with its overrides: left out, as the workbench leaves it.
        const evaluations: StoredEvaluationDto[] = store.evaluations.listByRun(run.id).map(({ config: _config, ...evaluation }) => evaluation);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ run, latestMetrics, checkpoints, evaluations }, null, 2)}\n`);
          return;
        }
        process.stdout.write(
          `${describeRun(run, lastCodeVersion(store, run.id))}\n\nconfig:\n${toYaml(run.config).trimEnd()}\n\nlatest metrics:\n${metricsTable(latestMetrics)}\n\ncheckpoints:\n${checkpointsTable(checkpoints)}\n\nevaluations:\n${evaluationsTable(evaluations)}\n`,
        );
      }, { reader: true });
    });
}
