// Runs' metrics as TensorBoard event files, so `tensorboard --logdir DIR` shows TurnLab runs
// beside runs of verl (`trainer.logger=['tensorboard']`) or any PyTorch script. A file is
// TensorFlow's record format: each record its length (uint64, little-endian), the masked CRC-32C
// of those 8 bytes, an `Event` message (tensorboard/compat/proto/event.proto), and its masked
// CRC-32C. The first event names the file's version; each metric point is an event with one
// scalar (`Summary.Value.simple_value`) tagged with the metric's name at the iteration as step.
import { createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import crc32c from 'crc-32/crc32c';
import protobuf from 'protobufjs';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';

/** Event, Summary and Summary.Value with the fields TensorBoard's scalars read, their numbers as in TensorBoard's protos. */
const EVENT_PROTO = protobuf.Root.fromJSON({
  nested: {
    Event: {
      oneofs: { what: { oneof: ['file_version', 'summary'] } },
      fields: {
        wall_time: { type: 'double', id: 1 },
        step: { type: 'int64', id: 2 },
        file_version: { type: 'string', id: 3 },
        summary: { type: 'Summary', id: 5 },
      },
    },
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

/** A run's folder under the export's: its id and name, as TensorBoard lists runs by folder. */
export function runFolderName(id: number, name: string): string {
  return `run-${id}-${name.replace(/[^\w.-]+/g, '_').slice(0, 100)}`;
}

/** A run folder that already holds TurnLab's event file, refused without `replace`. */
export class EventFileExists extends Error {
  constructor(readonly folder: string) {
    super(`${folder} already holds an event file of TurnLab's`);
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
    const folders = runs.map((run) => join(outDir, runFolderName(run.id, run.name)));
    const ours = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((f) => f.includes('tfevents') && f.endsWith(FILE_SUFFIX)) : []);
    const taken = folders.find((folder) => ours(folder).length > 0);
    if (taken !== undefined && !options.replace) throw new EventFileExists(taken);
    let points = 0;
    for (const [k, run] of runs.entries()) {
      const folder = folders[k];
      mkdirSync(folder, { recursive: true });
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
        renameSync(partial, join(folder, `events.out.tfevents.${Math.floor(run.createdAt / 1000)}.${hostname()}${FILE_SUFFIX}`));
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
