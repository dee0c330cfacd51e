// A trainer started by a host (the app, `turnlab serve`) whose host dies hard (kill -9) stops as
// if asked: it ends its iteration, saves a checkpoint and ends `stopped`, though the pipes its
// progress went to are closed (a write to them fails with EPIPE, which ended it before).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { until } from '../helpers/until';

const repo = resolve(import.meta.dirname, '../..');
let tmp: TempDir;
let store: Store;
let trainerPid: number | null = null;

beforeAll(() => {
  tmp = makeTempDir('turnlab-host-gone-');
  store = openStore(tmp.dir, { create: true });
});

afterAll(() => {
  if (trainerPid !== null) {
    try {
      process.kill(trainerPid, 'SIGKILL');
    } catch {
      // ended as it should
    }
  }
  store?.close();
  tmp?.cleanup();
});

/** A host as `turnlab serve` starts a trainer: stdout and stderr piped to it, an IPC channel; it prints the trainer's pid, then waits to be killed. */
const HOST = `
const { spawn } = require('node:child_process');
const [bin, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
child.stdout.resume();
child.stderr.resume();
process.stdout.write(String(child.pid) + '\\n');
setInterval(() => {}, 1000);
`;

describe('a trainer whose host dies', () => {
  it('saves a checkpoint at its last iteration and ends stopped, not interrupted', async () => {
    const hostFile = join(tmp.dir, 'host.cjs');
    writeFileSync(hostFile, HOST);
    const sets = [...TINY_LAKE_OVERRIDES, 'warm_start.steps=5', 'trainer.total_training_steps=500', 'trainer.save_freq=1000', 'trainer.test_freq=0'].flatMap((s) => ['--set', s]);
    const host = spawn(process.execPath, [hostFile, join(repo, 'bin/turnlab.js'), '--data-dir', tmp.dir, 'train', '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--name', 'orphan', ...sets], {
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    trainerPid = Number(await new Promise<string>((r) => host.stdout.once('data', (chunk: Buffer) => r(chunk.toString()))));
    await until('two iterations', () => ((store.runs.summary(1)?.iterations ?? 0) >= 2 ? true : undefined));
    expect(store.checkpoints.latest(1)).toBeUndefined();

    host.kill('SIGKILL');
    const ended = await until('the run to end', () => {
      const run = store.runs.get(1);
      return run && run.status !== 'running' ? run : undefined;
    }, 90_000);
    expect(ended.status).toBe('stopped');
    const checkpoint = store.checkpoints.latest(1);
    expect(checkpoint?.iteration).toBe(store.runs.summary(1)?.iterations);
  }, 150_000);
});
