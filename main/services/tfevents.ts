// Runs' metrics as TensorBoard event files, so `tensorboard --logdir DIR` shows TurnLab runs
// beside runs of verl (`trainer.logger=['tensorboard']`) or any PyTorch script: exported from the
// store (`turnlab export --format tfevents`) or written as a run trains (TensorBoardLog). A file is
// TensorFlow's record format: each record its length (uint64, little-endian), the masked CRC-32C
// of those 8 bytes, an `Event` message (tensorboard/compat/proto/event.proto), and its masked
// CRC-32C. The first event names the file's version; each metric point is an event with one
// scalar (`Summary.Value.simple_value`) tagged with the metric's name at the iteration as step.
import { closeSync, createWriteStream, existsSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import crc32c from 'crc-32/crc32c.js';
import protobuf from 'protobufjs';
import { FolderError, makeFolder } from '../../trainer-core';
import type { Store } from '../store/db';
import { runFolder } from './tensorboard-folders';
import { StoreError } from '../store/errors';

/** Event, Summary and Summary.Value with the fields TensorBoard's scalars read, their numbers as in TensorBoard's protos. */
const EVENT_PROTO = protobuf.Root.fromJSON({
  nested: {
    Event: {
      oneofs: { what: { oneof: ['file_version', 'summary', 'session_log'] } },
      fields: {
        wall_time: { type: 'double', id: 1 },
        step: { type: 'int64', id: 2 },
        file_version: { type: 'string', id: 3 },
        summary: { type: 'Summary', id: 5 },
        session_log: { type: 'SessionLog', id: 7 },
      },
    },
    // status 1 is START.
    SessionLog: { fields: { status: { type: 'int32', id: 1 } } },
    Summary: { fields: { value: { rule: 'repeated', type: 'Value', id: 1 } } },
    // simple_value sits in a oneof, so a value of 0 is written rather than left as the default.
    Value: { oneofs: { value: { oneof: ['simple_value'] } }, fields: { tag: { type: 'string', id: 1 }, simple_value: { type: 'float', id: 2 } } },
  },
}).lookupType('Event');

/** What every event file starts with, as TensorFlow's writers do. */
export const FILE_VERSION = 'brain.Event:2';
/** The name every event file of TurnLab's ends with: an export replaces only its own files. */
const FILE_SUFFIX = '.turnlab';

/** TensorFlow's masked CRC-32C: the CRC rotated right by 15 bits plus a constant. */
function maskedCrc(bytes: Uint8Array): number {
  const crc = crc32c.buf(bytes) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

/** One record of TensorFlow's record format around `data`. */
export function tfRecord(data: Uint8Array): Buffer {
  const record = Buffer.alloc(8 + 4 + data.length + 4);
  record.writeBigUInt64LE(BigInt(data.length), 0);
  record.writeUInt32LE(maskedCrc(record.subarray(0, 8)), 8);
  record.set(data, 12);
  record.writeUInt32LE(maskedCrc(data), 12 + data.length);
  return record;
}

/** The first event of a file. */
export function fileVersionEvent(wallTimeSeconds: number): Buffer {
  return tfRecord(EVENT_PROTO.encode(EVENT_PROTO.fromObject({ wall_time: wallTimeSeconds, step: 0, file_version: FILE_VERSION })).finish());
}

/** A scalar at a step. A value the store holds as NULL (a NaN when it was logged) is written as NaN. */
export function scalarEvent(tag: string, step: number, value: number | null, wallTimeSeconds: number): Buffer {
  const summary = { value: [{ tag, simple_value: value ?? Number.NaN }] };
  return tfRecord(EVENT_PROTO.encode(EVENT_PROTO.fromObject({ wall_time: wallTimeSeconds, step, summary })).finish());
}

/**
 * A restart at `step` (a resumed run): TensorBoard drops the points of every earlier file at this
 * step or later, which the resumed run trains again, as PyTorch's SummaryWriter(purge_step) does.
 */
export function sessionStartEvent(step: number, wallTimeSeconds: number): Buffer {
  return tfRecord(EVENT_PROTO.encode(EVENT_PROTO.fromObject({ wall_time: wallTimeSeconds, step, session_log: { status: 1 } })).finish());
}

/** A run folder that already holds TurnLab's event file, refused without `replace`. */
export class EventFileExists extends Error {
  constructor(readonly folder: string) {
    super(`${folder} already holds an event file of TurnLab's`);
  }
}

/** The name of an event file of TurnLab's (TensorBoard reads any name holding `tfevents`, in name order), `process` apart. */
function eventFileName(seconds: number, process = ''): string {
  return `events.out.tfevents.${Math.floor(seconds)}.${hostname()}${process ? `.${process}` : ''}${FILE_SUFFIX}`;
}

/**
 * A run's metrics written as it trains (`trainer.logger: [tensorboard]`): a new file in the run's
 * folder each time a process trains it, each record appended as the store takes its points. A
 * resumed run's file starts with a restart at its first iteration, so TensorBoard shows the run
 * once, not the iterations the resume trained again on top of the ones it threw away. The file
 * is a copy: one it cannot write (a full disk, a folder it may not write) is said once in the
 * run's log and given up, and the run trains on with its metrics in the store.
 */
export class TensorBoardLog {
  private fd: number | null = null;
  private failed = false;

  constructor(
    readonly folder: string,
    private readonly log?: (line: string) => void,
  ) {}

  private write(record: Buffer): void {
    if (this.failed) return;
    try {
      if (this.fd === null) {
        // Not Node's recursive mkdir, which spins forever under /proc.
        makeFolder(this.folder);
        const seconds = Date.now() / 1000;
        // The process id keeps apart two processes of one run in one second (a quick resume).
        this.fd = openSync(join(this.folder, eventFileName(seconds, String(process.pid))), 'a');
        writeSync(this.fd, fileVersionEvent(seconds));
      }
      writeSync(this.fd, record);
    } catch (error) {
      this.failed = true;
      this.close();
      const reason = error instanceof FolderError ? error.message : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      this.log?.(`tensorboard: cannot write ${this.folder} (${reason}); no more event files for this run, whose metrics are in the data folder (turnlab export --format tfevents writes them later)`);
    }
  }

  /** The first iteration this process trains; after 1, a restart there. */
  started(startIteration: number): void {
    if (startIteration > 1) this.write(sessionStartEvent(startIteration, Date.now() / 1000));
  }

  append(points: ReadonlyArray<{ name: string; iteration: number; value: number | null; wallTime: number }>): void {
    for (const p of points) this.write(scalarEvent(p.name, p.iteration, p.value, p.wallTime / 1000));
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export interface TfEventsExport {
  /** The folder of each run, in the order asked. */
  folders: string[];
  points: number;
}

/**
 * Writes each run's metrics as one event file in its own folder under `outDir`, from one read
 * snapshot. A run folder that already holds TurnLab's event file is refused (EventFileExists,
 * before anything is written) unless `replace`, which replaces it: TensorBoard would show both
 * files' points otherwise. Files of other writers are left alone. Each file is written under a
 * name TensorBoard does not read and renamed when whole, so a failed export leaves no half file.
 */
export async function exportTfEvents(store: Store, runIds: number[], outDir: string, options: { replace?: boolean } = {}): Promise<TfEventsExport> {
  const snapshot = store.openSnapshot();
  try {
    const runs = runIds.map((id) => {
      const run = snapshot.store.runs.get(id);
      if (!run) throw new StoreError('RUN_NOT_FOUND', `run ${id} was deleted before its export began; nothing was exported`);
      return run;
    });
    const folders = runs.map((run) => runFolder(outDir, run.id, run.name));
    const ours = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((f) => f.includes('tfevents') && f.endsWith(FILE_SUFFIX)) : []);
    const taken = folders.find((folder) => ours(folder).length > 0);
    if (taken !== undefined && !options.replace) throw new EventFileExists(taken);
    let points = 0;
    for (const [k, run] of runs.entries()) {
      const folder = folders[k];
      makeFolder(folder);
      const partial = join(folder, `.turnlab-export-${process.pid}.partial`);
      const out = createWriteStream(partial);
      try {
        const write = async (record: Buffer) => {
          if (!out.write(record)) await once(out, 'drain');
        };
        await write(fileVersionEvent(run.createdAt / 1000));
        for (const row of snapshot.store.metrics.exportRows([run.id])) {
          await write(scalarEvent(row.name as string, row.iteration as number, row.value as number | null, (row.wall_time as number) / 1000));
          points += 1;
        }
        out.end();
        await once(out, 'close');
        for (const old of ours(folder)) rmSync(join(folder, old));
        renameSync(partial, join(folder, eventFileName(run.createdAt / 1000)));
      } catch (error) {
        out.destroy();
        rmSync(partial, { force: true });
        throw error;
      }
    }
    return { folders, points };
  } finally {
    snapshot.end();
  }
}
