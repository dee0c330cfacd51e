import type { Command } from 'commander';
import { distance } from 'fastest-levenshtein';
import { closestName } from '../../trainer-core';
import { isRunColumn, isRunSortKey, METRIC_COLUMN_PREFIX, sortColumn, RUN_SORT_KEYS, type RunConditionDto, type RunPageQueryDto, type RunRowDto, type RunSortKeyDto, type UnknownRunColumnDto } from '../../preload/contract';
import { camelOf, parseRunConditions } from '../../preload/run-conditions';
import { RUN_PAGE_MAX_LIMIT } from '../store/repositories/run-page';
import type { Store } from '../store/db';
import type { RunSummary } from '../store/types';
import { UserError } from './errors';
import { formatTime, renderTable } from './format';
import { markAbandonedRuns } from '../services/run-owner';
import { noDataYet, withStore } from './with-store';

type TableRun = Pick<RunSummary, 'id' | 'name' | 'status' | 'envTags' | 'algorithm' | 'iterations' | 'bestValSuccess' | 'createdAt' | 'warmStartProgress'> & { columnValues?: unknown[] };

/** `queued` says nothing of a run in its warm start (minutes of it): the table says how far it is, as the Runs view does. */
export function statusText(run: Pick<RunSummary, 'status' | 'iterations' | 'warmStartProgress'>): string {
  const warm = run.warmStartProgress;
  return run.status === 'queued' && warm && run.iterations === null ? `${warm.phase === 'expert iteration' ? 'expert iteration' : 'warming up'} (${warm.step}/${warm.steps})` : run.status;
}

interface RunsOptions {
  json?: boolean;
  columns?: string;
  sort?: string;
  desc?: boolean;
  where?: string[];
}

export function successText(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(1)}%`;
}

/** A column's cell: a config value as YAML would read it, a metric to 4 significant digits, `-` where there is none. */
function columnCell(column: string, value: unknown): string | number {
  if (value === null || value === undefined) return '-';
  if (column.startsWith(METRIC_COLUMN_PREFIX) && typeof value === 'number') return Number(value.toPrecision(4));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function runsTable(runs: TableRun[], columns: readonly string[] = []): string {
  return renderTable(
    ['id', 'name', 'status', 'env', 'algorithm', 'iterations', 'best val success', 'created', ...columns],
    runs.map((run) => [
      run.id,
      run.name,
      statusText(run),
      run.envTags.join(', ') || '-',
      run.algorithm,
      run.iterations ?? '-',
      successText(run.bestValSuccess),
      formatTime(run.createdAt),
      ...columns.map((column, i) => columnCell(column, run.columnValues?.[i])),
    ]),
  );
}

/** `--columns` as the Runs table's columns: config keys and `metric:<name>`, each checked. */
/** A config column as --sort spells it (`config:trainer.seed`) is the same column bare. */
const withoutConfigPrefix = (column: string) => (column.startsWith('config:') ? column.slice('config:'.length) : column);

function parseColumns(text: string | undefined): string[] {
  const columns = (text ?? '').split(',').map((c) => withoutConfigPrefix(c.trim())).filter((c) => c !== '');
  const bad = columns.find((c) => !isRunColumn(c));
  if (bad !== undefined) throw new UserError(`--columns: '${bad}' is neither a dotted config key (algorithm.adv_estimator) nor metric:<name> (metric:val/Bandit/success)`);
  return columns;
}

function parseSort(text: string | undefined): RunSortKeyDto | undefined {
  if (text === undefined || isRunSortKey(text)) return text;
  // As --where and --json name them (best_val_success, created_at), and a config key as --columns takes it.
  const camel = camelOf(text);
  if ((RUN_SORT_KEYS as readonly string[]).includes(camel)) return camel as RunSortKeyDto;
  if (text.includes('.') && isRunSortKey(`config:${text}`)) return `config:${text}`;
  const near = closestName(text, RUN_SORT_KEYS)!;
  // A config key without its prefix (`lr`) is nearer no built-in column: say how to name it instead.
  const hint = distance(text, near) <= near.length / 2 ? ` (did you mean ${near}?)` : ` (a config key is config:${text.includes('.') ? text : `<path>.${text}`})`;
  throw new UserError(`--sort: '${text}' is not a column; use one of ${RUN_SORT_KEYS.join(', ')}, config:<key> or metric:<name>${hint}`);
}

/** Each `--where` (conditions joined by `and`), checked; all of them must hold. */
export function parseWhere(texts: readonly string[]): RunConditionDto[] {
  try {
    return texts.flatMap(parseRunConditions);
  } catch (error) {
    throw new UserError(`--where: ${(error as Error).message}`);
  }
}

/** A column no run has: a misspelt key, which would otherwise list no runs (or a column of `-`) and say nothing. */
function unknownColumnError(unknown: UnknownRunColumnDto, option = '--where'): UserError {
  const what = unknown.column.startsWith(METRIC_COLUMN_PREFIX) ? 'logged the metric' : 'has the config key';
  const hint = unknown.closest === null ? '' : ` (did you mean ${unknown.closest}?)`;
  return new UserError(`${option}: no run ${what} '${unknown.column.replace(METRIC_COLUMN_PREFIX, '')}'${hint}`);
}

/** The option `--where` as `runs` and `export` take it: repeatable. */
export const WHERE_OPTION = {
  flags: '--where <condition>',
  collect: (value: string, previous: string[]) => [...previous, value],
};

/** Every run as the Runs table pages them on the server, with its columns; a condition on a column no run has is an error. */
export function pagedRuns(store: Store, query: RunPageQueryDto): RunRowDto[] {
  const rows: RunRowDto[] = [];
  for (;;) {
    const page = store.runs.page({ ...query, offset: rows.length, limit: RUN_PAGE_MAX_LIMIT });
    const [unknown] = page.unknownColumns ?? [];
    if (unknown !== undefined && store.runs.page({ limit: 1 }).total > 0) throw unknownColumnError(unknown);
    rows.push(...page.rows);
    if (page.rows.length === 0 || rows.length >= page.total) return rows;
  }
}

/** The fields whose values the runs here can be listed for, as the Runs view's filters list them. */
const LISTED_FIELDS = ['status', 'algorithm', 'env', 'tag'] as const;

/**
 * Why --where matched nothing, where one `field=value` names a status, algorithm, env or tag no
 * run has (`status=done`, `status=finished`): the values the runs here have. Empty otherwise.
 */
export function whereMissNote(store: Store, where: readonly RunConditionDto[]): string {
  const choices = store.runs.filterChoices();
  for (const condition of where) {
    const field = LISTED_FIELDS.find((f) => f === condition.column);
    if (!field || condition.op !== '=' || choices[field].includes(String(condition.value))) continue;
    const have = choices[field];
    return `: no run has ${field}=${condition.value}${have.length > 0 ? `; ${field} here is one of ${have.slice(0, 8).join(', ')}${have.length > 8 ? ', ...' : ''}` : ''}`;
  }
  return '';
}

/**
 * The runs a command acts on: those named (ids or names), every run (`--all`, where the command
 * has it), or those `--where` selects, as `turnlab runs --where` lists them; each once.
 */
export function selectRuns(store: Store, refs: readonly string[], all: boolean, whereTexts: readonly string[], verb: string): number[] {
  const where = parseWhere(whereTexts);
  if (all && refs.length) throw new UserError('name runs or pass --all, not both');
  if (where.length > 0 && refs.length) throw new UserError('name runs or select them with --where, not both');
  if (!all && !refs.length && where.length === 0) {
    throw new UserError(`name the runs to ${verb} (ids or names, see 'turnlab runs')${verb === 'export' ? ', pass --all,' : ''} or select them with --where`);
  }
  if (where.length > 0) {
    const ids = pagedRuns(store, { where }).map((run) => run.id);
    if (ids.length === 0) throw new UserError(`no run in ${store.dataDir} matches --where${whereMissNote(store, where)}; nothing to ${verb}`);
    return ids;
  }
  const ids = all ? store.runs.allIds() : refs.map((ref) => store.runs.resolve(ref).id);
  return [...new Set(ids)];
}

export function register(program: Command): void {
  program
    .command('runs')
    .description('list the runs of the data folder')
    .option('--json', 'print a JSON array instead of a table')
    .option('--columns <list>', 'more columns, comma-separated: config keys or metric:<name> (its last logged value), e.g. algorithm.adv_estimator,metric:val/Bandit/success')
    .option('--sort <column>', `sort by ${RUN_SORT_KEYS.join(', ')}, config:<key> or metric:<name>; runs without a value last`)
    .option('--desc', 'sort descending')
    .option(WHERE_OPTION.flags, "only runs where a config key, metric:<name> (its last value) or a run's field (status, name, tag, env, ...) compares so, e.g. 'metric:val/Bandit/success>=0.9' or 'algorithm.adv_estimator=grpo and status=completed'; repeatable, all must hold", WHERE_OPTION.collect, [] as string[])
    .action(async (options: RunsOptions, command: Command) => {
      const columns = parseColumns(options.columns);
      const sort = parseSort(options.sort);
      const where = parseWhere(options.where ?? []);
      await withStore(command, async (store) => {
        // A run whose trainer is gone reads `interrupted`, decided as the app decides it.
        markAbandonedRuns(store);
        // A column no run has would be a column of `-` (a sort by it, the runs in id order): a
        // misspelt key, said as --where says it.
        const sorted = sort === undefined ? null : sortColumn(sort);
        const asked = [...columns.map((column) => ({ column, option: '--columns' })), ...(sorted === null ? [] : [{ column: sorted, option: '--sort' }])];
        const [unknown] = asked.length > 0 && store.runs.page({ limit: 1 }).total > 0 ? store.runs.unknownColumns(asked.map((a) => a.column)) : [];
        if (unknown !== undefined) throw unknownColumnError(unknown, asked.find((a) => a.column === unknown.column)!.option);
        if (columns.length > 0 || sort !== undefined || options.desc || where.length > 0) {
          const rows = pagedRuns(store, { columns, sort, descending: options.desc === true, where });
          if (options.json) {
            // A page's row carries the slice of the config the table reads; JSON gives the whole, as `runs --json` does.
            const withColumns = rows.map(({ columnValues, ...row }) => ({ ...row, config: store.runs.get(row.id)?.config ?? row.config, columns: Object.fromEntries(columns.map((c, i) => [c, columnValues?.[i] ?? null])) }));
            process.stdout.write(`${JSON.stringify(withColumns, null, 2)}\n`);
          } else {
            const none = where.length > 0 ? `no run in ${store.dataDir} matches --where${whereMissNote(store, where)}` : `no runs yet in ${store.dataDir}`;
            process.stdout.write(rows.length === 0 ? `${none}\n` : `${runsTable(rows, columns)}\n`);
          }
          return;
        }
        const runs = store.runs.list();
        if (options.json) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
        else if (runs.length === 0) process.stdout.write(`no runs yet in ${store.dataDir}\n`);
        else process.stdout.write(`${runsTable(runs)}\n`);
        if (options.json) return;
        // Seeds of groups still waiting for a slot have no run yet: say so, or the table looks complete.
        const { queuedSeeds } = await import('../services/seed-groups');
        const waiting = new Map<string, number[]>();
        for (const q of queuedSeeds(store).filter((s) => !s.cancelled)) waiting.set(q.group, [...(waiting.get(q.group) ?? []), q.seed]);
        if (waiting.size > 0) {
          const groups = [...waiting].map(([group, seeds]) => `${group} (seed${seeds.length === 1 ? '' : 's'} ${seeds.join(', ')})`).join('; ');
          process.stdout.write(`queued, not started yet: ${groups}; turnlab groups lists the groups, turnlab stop --group stops one\n`);
        }
        // Runs of sweeps sent to a cluster, with the scheduler's state as last polled (turnlab jobs polls).
        const { ClusterJobs } = await import('../cluster/jobs');
        const jobs = new ClusterJobs(store).list();
        if (jobs.length > 0) {
          const { jobsTable } = await import('./cluster-jobs');
          process.stdout.write(`cluster jobs (turnlab jobs polls the scheduler)\n${jobsTable(jobs)}\n`);
        }
      }, { reader: true, whenNone: (dir) => void process.stdout.write(options.json ? '[]\n' : `${noDataYet(dir, 'runs')}\n`) });
    });
}
