import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { BUNDLE_MANIFEST } from '../paths';

/**
 * A run bundle is a data folder of its own: `turnlab.sqlite` (rollback journal, not WAL, since WAL
 * needs shared memory that network filesystems do not give), `checkpoints/`, and this manifest.
 * Because it is a data folder, `turnlab --data-dir BUNDLE train|resume` writes into it directly,
 * which is how a cluster task trains; `turnlab import` merges it into the local store.
 */

export { BUNDLE_MANIFEST };
export const BUNDLE_FORMAT_VERSION = 1;

const manifestSchema = z.object({
  format: z.literal('turnlab-bundle'),
  version: z.number().int(),
  /** Stable for the bundle's life: with a run's id in the bundle it names the run on import. */
  bundleId: z.string().min(8),
  turnlabVersion: z.string(),
  createdAt: z.string(),
  /** The machine and scheduler job that last trained in it (null when exported from a store). */
  host: z.string().nullable(),
  jobId: z.string().nullable(),
  /** What the bundle was made for: a sweep's run (name, seed, group, config) or an export. */
  name: z.string().nullable(),
  seed: z.number().int().nullable(),
  seedGroup: z.string().nullable(),
  sweep: z.string().nullable(),
  config: z.unknown(),
});

export type BundleManifest = z.infer<typeof manifestSchema>;

function turnlabVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

export function manifestPath(dir: string): string {
  return join(dir, BUNDLE_MANIFEST);
}

export function isBundle(dir: string): boolean {
  return existsSync(manifestPath(dir));
}

export function newManifest(fields: Partial<Omit<BundleManifest, 'format' | 'version' | 'bundleId'>> = {}): BundleManifest {
  return {
    format: 'turnlab-bundle',
    version: BUNDLE_FORMAT_VERSION,
    bundleId: randomUUID(),
    turnlabVersion: turnlabVersion(),
    createdAt: new Date().toISOString(),
    host: null,
    jobId: null,
    name: null,
    seed: null,
    seedGroup: null,
    sweep: null,
    config: null,
    ...fields,
  };
}

/** For a cluster sweep's folder (its sweep.sbatch beside a bundle per run): how to name its bundles instead. */
function sweepFolderHint(dir: string): string | null {
  if (!existsSync(join(dir, 'sweep.sbatch'))) return null;
  return `${dir} is a cluster sweep's folder: give its run bundles, the folders in it, e.g. ${join(dir, '*')}/ (the slash leaves out its sweep.sbatch and slurm-*.out)`;
}

/** Reads and checks a bundle's manifest; refuses a missing, damaged or newer one naming the file. */
export function readManifest(dir: string): BundleManifest {
  const file = manifestPath(dir);
  if (!existsSync(dir)) throw new BundleError(`no folder ${dir} (a run bundle is the folder turnlab export-run writes, or one of a cluster sweep's run folders, <remote-dir>/<sweep>/<run>)`);
  if (!existsSync(file)) {
    if (statSync(dir).isFile()) {
      // The manifest itself, or another file of the bundle, named instead of its folder.
      if (isBundle(dirname(dir))) throw new BundleError(`${dir} is a file; give the bundle's folder (${dirname(dir)}), the one that holds ${BUNDLE_MANIFEST}`);
      // A sweep folder's own files (sweep.sbatch, slurm-*.out), which a glob such as sweeps/*/* picks up beside its bundles.
      const sweep = sweepFolderHint(dirname(dir));
      throw new BundleError(`${dir} is a file, not a run bundle (a folder holding ${BUNDLE_MANIFEST})${sweep ? `; ${sweep}` : ''}`);
    }
    const sweep = sweepFolderHint(dir);
    throw new BundleError(`${dir} is not a TurnLab run bundle (${BUNDLE_MANIFEST} not found)${sweep ? `; ${sweep}` : ''}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new BundleError(`${file} is not valid JSON (truncated or damaged); export or copy the bundle again`);
  }
  if ((raw as { format?: unknown } | null)?.format !== 'turnlab-bundle') throw new BundleError(`${file} is not a TurnLab bundle manifest`);
  const version = (raw as { version?: unknown }).version;
  if (typeof version === 'number' && version > BUNDLE_FORMAT_VERSION) {
    throw new BundleError(
      `${file} is bundle format ${version}, written by TurnLab ${String((raw as { turnlabVersion?: unknown }).turnlabVersion)}; this TurnLab reads format ${BUNDLE_FORMAT_VERSION}: update TurnLab to import it`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BundleError(`${file}: field \`${issue.path.join('.')}\` ${issue.message}`);
  }
  return parsed.data;
}

/** Writes the manifest whole or not at all (temp file, then rename). */
export function writeManifest(dir: string, manifest: BundleManifest): void {
  const file = manifestPath(dir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temp, file);
}

/** A trainer starting in a bundle records where it runs: this host and the Slurm job, if any. */
export function stampManifest(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!isBundle(dir)) return;
  const manifest = readManifest(dir);
  const jobId = env.SLURM_ARRAY_JOB_ID && env.SLURM_ARRAY_TASK_ID ? `${env.SLURM_ARRAY_JOB_ID}_${env.SLURM_ARRAY_TASK_ID}` : (env.SLURM_JOB_ID ?? null);
  writeManifest(dir, { ...manifest, host: hostname(), jobId });
}
