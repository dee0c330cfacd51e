import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { Option, type Command } from 'commander';
import {
  EXPORT_FORMATS,
  EXPORT_KINDS,
  exportRows,
  type ExportFormat,
  type ExportKind,
} from '../services/export';
import type { Store } from '../store/db';
import { UserError } from './errors';
import { withStore } from './with-store';

interface ExportOptions {
  all?: boolean;
  what: ExportKind;
  format: ExportFormat;
  out?: string;
  force?: boolean;
}

function selectRuns(store: Store, refs: string[], all: boolean): number[] {
  if (all && refs.length) throw new UserError('name runs or pass --all, not both');
  if (!all && !refs.length) throw new UserError("name the runs to export (ids or names, see 'turnlab runs') or pass --all");
  const ids = all ? store.runs.allIds() : refs.map((ref) => store.runs.resolve(ref).id);
  return [...new Set(ids)];
}

/** Opens --out, refusing to replace an existing file unless --force. */
async function openOut(path: string, force: boolean): Promise<WriteStream> {
  const stream = createWriteStream(path, { flags: force ? 'w' : 'wx' });
  try {
    await once(stream, 'open');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UserError(`${path} already exists; pass --force to overwrite it`);
    if (code === 'ENOENT') throw new UserError(`cannot write ${path}: its folder does not exist`);
    throw new UserError(`cannot write ${path}: ${(error as Error).message}`);
  }
  return stream;
}

async function toStdout(store: Store, what: ExportKind, format: ExportFormat, runIds: number[]): Promise<void> {
  try {
    await exportRows(store, { what, format, runIds }, process.stdout, { end: false });
  } catch (error) {
    // The reader went away (`| head`): nothing left to say to anyone.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw error;
  }
}

async function toFile(store: Store, options: ExportOptions & { out: string }, runIds: number[]): Promise<void> {
  const stream = await openOut(options.out, options.force ?? false);
  try {
    const { rows } = await exportRows(store, { what: options.what, format: options.format, runIds }, stream);
    process.stderr.write(`exported ${rows} ${options.what} rows of ${runIds.length} run(s) to ${options.out}\n`);
  } catch (error) {
    // No half-written export left behind to be mistaken for a whole one.
    stream.destroy();
    rmSync(options.out, { force: true });
    throw error;
  }
}

export function register(program: Command): void {
  program
    .command('export')
    .description('export runs, metrics, episodes or turns as CSV (RFC 4180) or JSONL, streaming')
    .argument('[runs...]', 'run ids or unique run names')
    .option('--all', 'export every run')
    .addOption(
      new Option('--what <kind>', 'what to export').choices(EXPORT_KINDS as unknown as string[]).makeOptionMandatory(),
    )
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS as unknown as string[]).default('csv'))
    .option('--out <file>', 'write to FILE instead of stdout')
    .option('--force', 'overwrite an existing --out file')
    .action(async (refs: string[], options: ExportOptions, command: Command) => {
      await withStore(command, async (store) => {
        const runIds = selectRuns(store, refs, options.all ?? false);
        if (options.out) await toFile(store, { ...options, out: options.out }, runIds);
        else await toStdout(store, options.what, options.format, runIds);
      });
    });
}
