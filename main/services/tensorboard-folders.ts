// Where a run's TensorBoard event files go under a log folder: one folder a run, named by its id
// and name. Apart from the writer (tfevents.ts) so that deleting a run need not load protobufjs.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileNamePart } from '../../preload/file-names';

/** A run's folder under the export's: its id and name, as TensorBoard lists runs by folder. */
export function runFolderName(id: number, name: string): string {
  return `run-${id}-${fileNamePart(name, 100)}`;
}

/** The folders under `root` of run `id`, whatever it was called when each was written. */
export function runFolders(root: string, id: number): string[] {
  // A root that is no folder (TENSORBOARD_DIR set to a file) has no run folders; writing one
  // there fails later with a warning the run goes on past.
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(`run-${id}-`))
    .map((entry) => join(root, entry.name));
}

/** Run `id`'s folder under `root`: the one it has (a run renamed since keeps its folder, so TensorBoard shows one run), else one by its name. */
export function runFolder(root: string, id: number, name: string): string {
  return runFolders(root, id)[0] ?? join(root, runFolderName(id, name));
}
