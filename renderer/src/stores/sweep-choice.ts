// The New run form's sweep fields read into a startSweep request: pure, so the form and its
// tests read them the same way, with the CLI's own grid parser.
import type { StartSweepRequest } from '../../../preload/contract';
import { expandGrid, parseGridAxis, slurmTimeProblem } from '../../../preload/sweep-plan';

export interface SweepChoice {
  /** One `key=v1,v2` a line. */
  gridText: string;
  executor: 'local' | 'slurm';
  remoteDir: string;
  /** The shared folder as this machine sees it; empty: the same path. */
  localDir: string;
  /** Extra `#SBATCH` lines, one a line (`--mem=32G`). */
  sbatchText: string;
  ssh: string;
  partition: string;
  time: string;
  gres: string;
  cpusPerTask: string;
  /** How a node starts turnlab; empty: the server's default. */
  turnlab: string;
}

export interface SweepFieldValue {
  /** A grid or a cluster was asked for: Start starts a sweep instead of a run or a seed group. */
  active: boolean;
  request: Pick<StartSweepRequest, 'grid' | 'executor' | 'slurm'>;
  /** The number of settings of the grid. */
  settings: number;
  problem: string | null;
  /** The server's reading of the grid against the config is on its way: Start waits for it. */
  pending?: boolean;
}

export const NO_SWEEP: SweepFieldValue = { active: false, request: { grid: [], executor: 'local' }, settings: 1, problem: null };

export function readSweepChoice(choice: SweepChoice): SweepFieldValue {
  const grid = choice.gridText.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const active = grid.length > 0 || choice.executor === 'slurm';
  if (!active) return NO_SWEEP;
  let settings = 1;
  try {
    settings = expandGrid(grid.map((line) => parseGridAxis(line, 'form')), 'form').length;
  } catch (error) {
    return { active, request: { grid, executor: choice.executor }, settings, problem: (error as Error).message };
  }
  if (choice.executor === 'local') return { active, request: { grid, executor: 'local' }, settings, problem: null };
  const text = (value: string) => value.trim() || undefined;
  const remoteDir = choice.remoteDir.trim();
  const localDir = choice.localDir.trim();
  const cpus = choice.cpusPerTask.trim();
  const sbatch = choice.sbatchText.split('\n').map((l) => l.trim().replace(/^#SBATCH\s+/, '')).filter((l) => l !== '');
  const problem = slurmProblem(remoteDir, localDir, choice.time.trim(), cpus, sbatch);
  return {
    active,
    request: {
      grid,
      executor: 'slurm',
      slurm: { remoteDir, localDir: text(choice.localDir), sbatch: sbatch.length > 0 ? sbatch : undefined, ssh: text(choice.ssh), partition: text(choice.partition), time: text(choice.time), gres: text(choice.gres), turnlab: text(choice.turnlab), cpusPerTask: cpus && !problem ? Number(cpus) : undefined },
    },
    settings,
    problem,
  };
}

/** What is wrong with the cluster fields, the first problem only (the form shows one line). */
function slurmProblem(remoteDir: string, localDir: string, time: string, cpus: string, sbatch: readonly string[]): string | null {
  if (!remoteDir) return 'a Slurm sweep needs a shared folder: where the nodes write the run bundles';
  if (!remoteDir.startsWith('/')) {
    return `the shared folder '${remoteDir}' must be an absolute path as the nodes see it (e.g. /shared/sweeps): a relative one would be read from the login node's home and from here differently`;
  }
  if (localDir && !localDir.startsWith('/')) return `the local folder '${localDir}' must be an absolute path (this machine's view of the shared folder)`;
  if (time && slurmTimeProblem(time)) return slurmTimeProblem(time);
  if (cpus && !/^[1-9]\d*$/.test(cpus)) return `cpus per task '${cpus}' is not a whole number of 1 or more`;
  const notFlag = sbatch.find((l) => !l.startsWith('-'));
  if (notFlag !== undefined) return `the #SBATCH line '${notFlag}' is not an sbatch flag: write one a line as sbatch reads it, e.g. --mem=32G`;
  return null;
}
