import { randomBytes } from 'node:crypto';
import { cpSync, createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError, YamlSource } from '../../trainer-core';
import type { Store } from '../store/db';
import type { CheckpointRecord } from '../store/types';
import { StoreError } from '../store/errors';
import { evaluationToExport, exportRows, type ExportRequest } from './export';
import { checkpointFolder, RunAdminError } from './run-admin';
import { fileNamePart } from '../../preload/file-names';

/** Files the workbench writes: edited configs, exports and model copies the user asked for. */

/** Runs to export: the ones named (each must exist), or every run when none is named. */
export function exportRunIds(store: Store, runIds: readonly number[]): number[] {
  if (runIds.length === 0) return store.runs.allIds();
  for (const id of runIds) {
    if (!store.runs.get(id)) throw new RunAdminError('NOT_FOUND', `unknown run ${id}: no run has this id (the Runs view lists them)`);
  }
  return [...runIds];
}

/**
 * The export the workbench asked for, its runs and evaluation checked: every run when none is
 * named, and an evaluation's episodes or turns only of its own run (the CLI's check, whose
 * refusal is the workbench's too).
 */
export function workbenchExport(store: Store, request: ExportRequest): ExportRequest {
  const checked = { ...request, runIds: exportRunIds(store, request.runIds) };
  if (checked.evaluationId === undefined) return checked;
  try {
    evaluationToExport(store, checked);
  } catch (error) {
    if (error instanceof StoreError) throw new RunAdminError(store.evaluations.get(checked.evaluationId) ? 'REFUSED' : 'NOT_FOUND', error.message);
    throw error;
  }
  return checked;
}

/**
 * `turnlab-<what>-run-4-fl-small-s3.csv` for one run (its id and name), `-runs-1-2` for
 * several, `-all-runs` when every run is exported; `-evaluation-7` after the run for an evaluation's.
 */
export function exportFileName(store: Store, request: ExportRequest, all: boolean): string {
  const only = request.runIds.length === 1 ? store.runs.get(request.runIds[0]) : undefined;
  const named = only ? fileNamePart(only.name, 60).replace(/^[_.-]+|[_.-]+$/g, '') : '';
  const runs = all
    ? 'all-runs'
    : only
      ? `run-${only.id}${named ? `-${named}` : ''}`
      : `runs-${request.runIds.slice(0, 8).join('-')}${request.runIds.length > 8 ? '-etc' : ''}`;
  const evaluation = request.evaluationId === undefined ? '' : `-evaluation-${request.evaluationId}`;
  return `turnlab-${request.what}-${runs}${evaluation}.${request.format}`;
}

/** Writes the export to `path` with the CLI's export code. */
export async function exportToFile(store: Store, request: ExportRequest, path: string): Promise<{ path: string; rows: number }> {
  const { rows } = await exportRows(store, request, createWriteStream(path));
  return { path, rows };
}

/**
 * Keeps edited YAML as a file in `<data>/configs/`, so the trainer loads it like any config
 * and the run can be traced back to the text it started from. Relative paths inside it
 * (custom env modules) resolve against that folder.
 */
export function writeEditedConfig(store: Store, yaml: string): string {
  let parsed: unknown;
  try {
    // As a config file is read: a syntax error names its line (an unclosed quote where it opens).
    parsed = new YamlSource(yaml, 'the config text').toJS();
  } catch (error) {
    if (error instanceof ConfigError) throw new RunAdminError('REFUSED', error.message);
    throw error;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new RunAdminError('REFUSED', 'the config text must be a YAML mapping (trainer:, model:, ...)');
  }
  const dir = join(store.dataDir, 'configs');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = join(dir, `edited-${stamp}-${randomBytes(3).toString('hex')}.yaml`);
  writeFileSync(path, yaml, { flag: 'wx' });
  return path;
}

/** The name a checkpoint's copy or archive gets: `run-<id>-iter-<n>`. */
export function checkpointExportName(checkpoint: CheckpointRecord): string {
  return `run-${checkpoint.runId}-iter-${checkpoint.iteration}`;
}

/** Copies a checkpoint's model folder into `destinationDir`; never overwrites. */
export function copyCheckpointFolder(store: Store, checkpoint: CheckpointRecord, destinationDir: string): string {
  const source = checkpointFolder(store, checkpoint);
  if (!existsSync(source)) throw new RunAdminError('NOT_FOUND', `checkpoint ${checkpoint.id}'s folder is gone (${basename(source)})`);
  const target = join(destinationDir, checkpointExportName(checkpoint));
  if (existsSync(target)) throw new RunAdminError('REFUSED', `${target} exists already; choose another folder`);
  cpSync(source, target, { recursive: true, errorOnExist: true, force: false });
  return target;
}
