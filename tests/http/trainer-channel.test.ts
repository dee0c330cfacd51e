// The trainer and the run manager talk over a typed channel (Node IPC here, the utilityProcess
// port in the app): the run id and progress arrive as messages, and Stop is a message the
// trainer answers by finishing its iteration, saving a checkpoint and exiting. The trainer's
// stderr is hidden from the manager here, so nothing can come from parsing it.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../main/store/db';
import { RunManager, type ProgressMessage } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher, type TrainerLauncher } from '../../main/trainer-host/trainer-process';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { until } from '../helpers/until';

const repo = resolve(import.meta.dirname, '../..');
let tmp: TempDir;
let store: Store;
let manager: RunManager;

beforeAll(() => {
  tmp = makeTempDir('turnlab-channel-');
  store = openStore(tmp.dir, { create: true });
  const node = nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repo, 'bin/turnlab.js'), env: process.env });
  const withoutStderr: TrainerLauncher = (args) => {
    const child = node(args);
    child.stderr?.resume();
    return Object.assign(Object.create(child) as typeof child, { stderr: null });
  };
  manager = new RunManager(store, withoutStderr);
});

afterAll(() => {
  manager?.dispose();
  store?.close();
  tmp?.cleanup();
});

describe('the trainer channel', () => {
  it('brings the run id and progress as messages, and a stop message ends the run stopped with a checkpoint', async () => {
    const progress: ProgressMessage[] = [];
    manager.onProgress((message) => progress.push(message));
    const { runId } = await manager.start({
      configPath: join(repo, 'configs/frozenlake-nonslip.yaml'),
      overrides: [...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=50', 'trainer.save_freq=0', 'trainer.test_freq=0'],
      name: 'channel',
    });
    expect(store.runs.get(runId)?.name).toBe('channel');
    await until('a progress message', () => (progress.some((m) => m.iteration >= 1) ? true : undefined));
    expect(progress[0]).toMatchObject({ type: 'progress', runId, total: 50 });
    expect(progress[0].metrics).toHaveProperty('train/FrozenLakeNonSlip/success');

    manager.stop(runId);
    const stopped = await until('the run to end', () => {
      const run = store.runs.summary(runId);
      return run && manager.list().length === 0 && run.status !== 'stopping' && run.status !== 'running' ? run : undefined;
    });
    expect(stopped.status).toBe('stopped');
    expect(stopped.iterations).toBeLessThan(50);
    const checkpoint = store.checkpoints.latest(runId);
    expect(checkpoint?.iteration).toBe(stopped.iterations);
    expect(existsSync(join(tmp.dir, checkpoint!.path, 'policy.safetensors'))).toBe(true);
    expect(progress.at(-1)?.iteration).toBe(stopped.iterations);
  });
});
