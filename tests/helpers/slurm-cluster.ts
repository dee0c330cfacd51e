// The one-node Slurm cluster of scripts/slurm-local.sh, started for the Slurm tests: the real
// slurmctld, slurmd and munged; sbatch, squeue, scontrol and scancel then reach it through
// SLURM_CONF, which the turnlab processes a test starts inherit.
//
// Test files run in parallel workers, so starting and stopping go under one lock, and each file
// registers itself while it uses the cluster: the last file to leave stops it, and only when the
// tests started it (a cluster someone ran before is left running).
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEEDS_SLURM } from '../setup/requirements';
import { repoRoot } from './turnlab-cli';

export const hasSlurm = NEEDS_SLURM.present();

const script = join(repoRoot, 'scripts/slurm-local.sh');
const dir = process.env.TURNLAB_SLURM_DIR || '/tmp/turnlab-slurm';
const lock = join(tmpdir(), 'turnlab-slurm.lock');

// flock -o: the daemons a start spawns (munged keeps every fd) must not inherit the lock, or the
// next test file waits on it until munged exits.
function underLock(shell: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('flock', ['-o', lock, 'bash', '-c', shell, 'slurm-cluster', script, dir, String(process.pid)], { encoding: 'utf8', timeout: 60_000 });
}

/** SLURM_CONF as it was before startSlurm: test files share their worker's environment. */
let confBefore: { value: string | undefined } | undefined;

/** Starts the cluster unless it runs already, and registers this test file as using it. */
export function startSlurm(): void {
  const started = underLock(`
    set -e
    if ! bash "$1" status >/dev/null; then bash "$1" start >/dev/null; mkdir -p "$2"; touch "$2/started-by-tests"; fi
    mkdir -p "$2/users" && touch "$2/users/$3"
    bash "$1" start`);
  const conf = /export SLURM_CONF=(\S+)/.exec(started.stdout)?.[1];
  if (started.status !== 0 || !conf) throw new Error(`scripts/slurm-local.sh start failed: ${started.stderr.trim()}`);
  confBefore = { value: process.env.SLURM_CONF };
  process.env.SLURM_CONF = conf;
}

/** Unregisters this test file; the last one out stops a cluster the tests started. */
export function stopSlurm(): void {
  underLock(`
    rm -f "$2/users/$3"
    for user in "$2"/users/*; do [ -e "$user" ] && kill -0 "\${user##*/}" 2>/dev/null && exit 0; done
    if [ -f "$2/started-by-tests" ]; then bash "$1" stop; rm -f "$2/started-by-tests"; fi`);
  if (confBefore) {
    if (confBefore.value === undefined) delete process.env.SLURM_CONF;
    else process.env.SLURM_CONF = confBefore.value;
    confBefore = undefined;
  }
}
