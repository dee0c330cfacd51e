// The one-node Slurm cluster of scripts/slurm-local.sh, started for the Slurm tests: the real
// slurmctld, slurmd and munged; sbatch, squeue, scontrol and scancel then reach it through
// SLURM_CONF, which the turnlab processes a test starts inherit.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { NEEDS_SLURM } from '../setup/requirements';
import { repoRoot } from './turnlab-cli';

export const hasSlurm = NEEDS_SLURM.present();

/** Starts the cluster unless it runs already; returns whether this call started it. */
export function startSlurm(): boolean {
  const script = join(repoRoot, 'scripts/slurm-local.sh');
  const wasRunning = spawnSync('bash', [script, 'status'], { encoding: 'utf8' }).status === 0;
  const started = spawnSync('bash', [script, 'start'], { encoding: 'utf8', timeout: 60_000 });
  const conf = /export SLURM_CONF=(\S+)/.exec(started.stdout)?.[1];
  if (started.status !== 0 || !conf) throw new Error(`scripts/slurm-local.sh start failed: ${started.stderr.trim()}`);
  process.env.SLURM_CONF = conf;
  return !wasRunning;
}

export function stopSlurm(): void {
  spawnSync('bash', [join(repoRoot, 'scripts/slurm-local.sh'), 'stop'], { encoding: 'utf8', timeout: 60_000 });
}
