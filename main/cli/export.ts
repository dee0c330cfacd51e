import { createWriteStream, linkSync, renameSync, rmSync, statSync, type Stats, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import { Option, type Command } from 'commander';
import {
  EXPORT_FORMATS,
  EXPORT_KINDS,
  evaluationToExport,
  exportRows,
  type ExportFormat,
  type ExportRequest,
  type ExportKind,
} from '../services/export';
import type { Store } from '../store/db';
import { FolderError } from '../../trainer-core';
import { UserError } from './errors';
import { counted } from './format';
import { shellQuote } from '../shell-quote';
import { selectRuns, WHERE_OPTION } from './runs';
import { withStore } from './with-store';
import { wholeNumber } from './whole-number';

/** Besides the workbench's formats: TensorBoard's event files, a folder of them (metrics only). */
const TFEVENTS = 'tfevents';
const CLI_FORMATS = [...EXPORT_FORMATS, TFEVENTS] as const;

interface ExportOptions {
  all?: boolean;
  what: ExportKind;
  format: ExportFormat | typeof TFEVENTS;
  out?: string;
  force?: boolean;
  where?: string[];
  evaluation?: string;
}

const WRITE_REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full; free space or choose another --out',
  EDQUOT: 'the disk quota is used up; free space or choose another --out',
  EROFS: 'the file system is read-only; choose another --out',
  EACCES: 'this user may not write it; choose another --out',
  EPERM: 'the system does not allow writing it; choose another --out',
  EISDIR: 'it is a folder; give --out a file name',
  ENOENT: 'its folder does not exist; create it first (mkdir -p) or choose another --out',
  ENOTDIR: 'a part of its path is a file, not a folder; choose another --out',
  EIO: 'the disk reported an input/output error',
};

/** A failed write to `target` (a file, or stdout) as one line naming it and what to do. */
function writeError(target: string, error: unknown): UserError | unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (!code || !code.startsWith('E') || code === 'EPIPE') return error;
  return new UserError(`cannot write ${target}: ${WRITE_REASONS[code] ?? (error as Error).message.split('\n')[0]} (${code}); nothing was exported`);
}

/** Opens `path` for writing (`exclusive`: it must not exist yet); errors name `shown`. */
async function openOut(path: string, exclusive: boolean, shown: string): Promise<WriteStream> {
  const stream = createWriteStream(path, { flags: exclusive ? 'wx' : 'w' });
  try {
    await once(stream, 'open');
  } catch (error) {
    throw writeError(shown, error);
  }
  return stream;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Each run's metrics as TensorBoard's event file in a folder of its own under --out. */
async function toEventFolder(store: Store, options: ExportOptions, runIds: number[]): Promise<void> {
  if (options.what !== 'metrics') throw new UserError(`--format tfevents holds metrics only: use --what metrics (not ${options.what})`);
  const out = options.out;
  if (out === undefined) throw new UserError('--format tfevents writes a folder of event files: give it --out DIR (then: tensorboard --logdir DIR)');
  if (statOrNull(out)?.isFile()) throw new UserError(`cannot write ${out}: it is a file; --format tfevents writes a folder of event files, give --out a folder`);
  const { exportTfEvents, EventFileExists } = await import('../services/tfevents');
  try {
    const { folders, points } = await exportTfEvents(store, runIds, out, { replace: options.force === true });
    process.stderr.write(`exported ${counted(points, 'metric point')} of ${counted(folders.length, 'run')} as TensorBoard event files under ${out} (tensorboard --logdir ${shellQuote(out)})\n`);
  } catch (error) {
    if (error instanceof EventFileExists) throw new UserError(`${error.folder} already holds TurnLab's event file of that run; pass --force to replace it (nothing was written)`);
    if (error instanceof FolderError) throw new UserError(`cannot create a folder under ${out}: ${error.message}; choose another --out (nothing was written)`);
    throw writeError(out, error);
  }
}

async function toStdout(store: Store, request: ExportRequest): Promise<void> {
  try {
    await exportRows(store, request, process.stdout, { end: false });
  } catch (error) {
    // The reader went away (`| head`): nothing left to say to anyone.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw writeError('the export to stdout', error);
  }
}

/**
 * Writes the export beside --out and moves it into place when whole: a failed export leaves no
 * half-written file, and an existing file (kept unless --force) survives a failure intact.
 * A device or pipe (/dev/stdout, a FIFO) is written in place and never removed.
 */
async function toFile(store: Store, options: ExportOptions & { out: string }, request: ExportRequest): Promise<void> {
  const out = options.out;
  const existing = statOrNull(out);
  if (existing?.isDirectory()) throw new UserError(`cannot write ${out}: it is a folder; give --out a file name (EISDIR)`);
  if (existing && !options.force) throw new UserError(`${out} already exists; pass --force to overwrite it`);
  const inPlace = existing !== null && !existing.isFile();
  const target = inPlace ? out : join(dirname(out), `.${basename(out)}.${process.pid}.partial`);
  const stream = await openOut(target, !inPlace, out);
  try {
    const { rows } = await exportRows(store, request, stream);
    if (!inPlace) {
      if (options.force) renameSync(target, out);
      else {
        // link, unlike rename, refuses a file that appeared at `out` meanwhile.
        try {
          linkSync(target, out);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError(`${out} already exists; pass --force to overwrite it`);
          throw error;
        }
        rmSync(target, { force: true });
      }
    }
    const of = request.evaluationId !== undefined ? `evaluation ${request.evaluationId}` : counted(request.runIds.length, 'run');
    process.stderr.write(`exported ${counted(rows, 'row')} of ${options.what} from ${of} to ${out}\n`);
  } catch (error) {
    stream.destroy();
    if (!inPlace) rmSync(target, { force: true });
    throw writeError(out, error);
  }
}

export function register(program: Command): void {
  program
    .command('export')
    .description('export runs, metrics, episodes or turns as CSV (RFC 4180) or JSONL, streaming; metrics also as TensorBoard event files')
    .argument('[runs...]', 'run ids or unique run names')
    .option('--all', 'export every run')
    .option(WHERE_OPTION.flags, "export the runs that meet a condition, as `turnlab runs --where` lists them (e.g. 'algorithm.adv_estimator=grpo'); repeatable", WHERE_OPTION.collect, [] as string[])
    .addOption(
      new Option('--what <kind>', 'what to export').choices(EXPORT_KINDS as unknown as string[]).default('metrics'),
    )
    .addOption(new Option('--format <format>', 'output format (tfevents: a folder of TensorBoard event files, one run a folder)').choices(CLI_FORMATS as unknown as string[]).default('csv'))
    .option('--out <file>', 'write to FILE instead of stdout (with --format tfevents, a folder)')
    .option('--evaluation <id>', "export the episodes or turns an evaluation played (turnlab eval prints its id) instead of the run's own; give its run alone")
    .option('--force', 'overwrite an existing --out file (tfevents: replace the runs\' event files TurnLab wrote there before)')
    .action(async (refs: string[], options: ExportOptions, command: Command) => {
      await withStore(command, async (store) => {
        const runIds = selectRuns(store, refs, options.all ?? false, options.where ?? [], 'export');
        const evaluationId = options.evaluation === undefined ? undefined : wholeNumber('--evaluation', options.evaluation, 1);
        if (options.format === TFEVENTS) {
          if (evaluationId !== undefined) throw new UserError("--evaluation exports an evaluation's episodes or turns as csv or jsonl; tfevents holds a run's metrics");
          await toEventFolder(store, options, runIds);
          return;
        }
        const request: ExportRequest = { what: options.what, format: options.format, runIds, evaluationId };
        // Refused before a file is opened: an unknown evaluation, another run's, or metrics asked of it.
        if (evaluationId !== undefined) evaluationToExport(store, request);
        if (options.out) await toFile(store, { ...options, out: options.out }, request);
        else await toStdout(store, request);
      }, { reader: true });
    });
}
