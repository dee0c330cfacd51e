import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { BackendMemoryError, explainMicroBatchMemory, explainOutOfMemory, explainSamplingMemory, explainScoringMemory } from '../../trainer-core/model/backend-memory';
import { workerFailure } from '../../trainer-core/workers/worker-memory';
import { workerError } from '../../trainer-core/workers/worker-pool';
import { asTrainingUserError } from '../../main/cli/training-errors';
import { UserError } from '../../main/cli/errors';
import { loadRunConfig } from '../../trainer-core/config';
import { warmStartBatchSize } from '../../trainer-core/train/supervised-warm-start';

describe('running out of backend memory', () => {
  // What the wasm backend throws when its 4 GB heap is full: malloc returns null and the next
  // kernel writes out of bounds.
  const { RuntimeError } = (globalThis as unknown as { WebAssembly: { RuntimeError: new (message: string) => Error } }).WebAssembly;
  const wasmOom = () => new RuntimeError('memory access out of bounds');

  it('names what was computed and the key to lower, by what the micro-batch trains', () => {
    const actor = explainMicroBatchMemory(wasmOom(), 'actor', 32, 780) as Error;
    expect(actor).toBeInstanceOf(BackendMemoryError);
    expect(actor.message).toMatch(/ran out of memory computing the gradients of 32 rows of up to 780 tokens/);
    expect(actor.message).toMatch(/lower actor_rollout_ref\.actor\.ppo_micro_batch_size_per_gpu/);
    expect(actor.message).toMatch(/memory access out of bounds/);
    expect((explainMicroBatchMemory(wasmOom(), 'critic', 4, 10) as Error).message).toMatch(/lower critic\.ppo_micro_batch_size_per_gpu/);
    expect((explainMicroBatchMemory(wasmOom(), 'supervised', 4, 10) as Error).message).toMatch(/lower warm_start\.batch_size/);
  });

  it('never advises a micro-batch below one row: names the keys that shrink a row instead', () => {
    const one = (explainMicroBatchMemory(wasmOom(), 'actor', 1, 610) as Error).message;
    expect(one).toMatch(/1 row of up to 610 tokens/);
    expect(one).not.toMatch(/lower [a-z_.]*micro_batch/);
    expect(one).toMatch(/the micro-batch is one row already/);
    expect(one).toMatch(/enable_gradient_checkpointing=true/);
    expect(one).toMatch(/agent_proxy\.max_context_window/);
    expect(one).toMatch(/agent_proxy\.max_turn/);
    // With checkpointing already on, it is not advised again.
    expect((explainMicroBatchMemory(wasmOom(), 'actor', 1, 610, true) as Error).message).not.toMatch(/gradient_checkpointing/);
    // Several rows: the micro-batch first, with its current size.
    expect((explainMicroBatchMemory(wasmOom(), 'critic', 4, 610) as Error).message).toMatch(/lower critic\.ppo_micro_batch_size_per_gpu .*\(now 4\)/);
  });

  it('reads the wasm module aborting on a full heap as running out of memory', () => {
    // A tensor registered after the heap filled up: emscripten aborts with an empty reason.
    const aborted = new RuntimeError('Aborted(). Build with -sASSERTIONS for more info.');
    const sampling = explainSamplingMemory(aborted, 4096) as Error;
    expect(sampling).toBeInstanceOf(BackendMemoryError);
    expect(sampling.message).toMatch(/ran out of memory sampling replies for 4096 episodes at once/);
    expect(sampling.message).toMatch(/--episodes of `turnlab eval`/);
  });

  it('leaves every other error as it was', () => {
    const other = new RangeError('shapes do not match');
    expect(explainOutOfMemory(other, 'doing', 'fix')).toBe(other);
    expect(explainOutOfMemory('a string', 'doing', 'fix')).toBe('a string');
  });

  it('stays a user error when a worker thread hit it', () => {
    const inWorker = explainMicroBatchMemory(wasmOom(), 'actor', 8, 100) as Error;
    const received = workerError(1, { error: inWorker.stack ?? '', name: inWorker.name, message: inWorker.message });
    expect(received.name).toBe('BackendMemoryError');
    expect(received.message).toBe(`worker 1: ${inWorker.message}`);
    const shown = asTrainingUserError(received);
    expect(shown).toBeInstanceOf(UserError);
    expect((shown as Error).message).toMatch(/lower actor_rollout_ref\.actor\.ppo_micro_batch_size_per_gpu/);
    // A bug in a worker stays an internal error, with the worker's stack.
    const bug = workerError(2, { error: 'TypeError: x is undefined\n    at f (a.ts:1)', name: 'TypeError', message: 'x is undefined' });
    expect(asTrainingUserError(bug)).toBe(bug);
    expect(bug.stack).toMatch(/^worker 2: TypeError: x is undefined\n {4}at f/);
  });
});

describe('a worker thread out of memory', () => {
  it('names the cause and trainer.workers, as a user error', async () => {
    // A real worker exhausting a small JavaScript heap: Node's own error, as the pool receives it.
    const worker = new Worker('const kept = []; for (;;) kept.push(new Array(1e5).fill(1));', { eval: true, resourceLimits: { maxOldGenerationSizeMb: 8 } });
    const error = await new Promise<Error>((resolve) => worker.on('error', resolve));
    const failure = workerFailure(1, error);
    expect(failure.name).toBe('BackendMemoryError');
    expect(failure.message).toMatch(/^worker 1 ran out of memory \(.*memory limit.*\): each worker thread holds its own copy of the models .*lower trainer\.workers/);
    expect((asTrainingUserError(failure) as Error).message).toBe(failure.message);
    // Sampling and scoring passes say what ran out and which keys help, on any thread.
    const { RuntimeError } = (globalThis as unknown as { WebAssembly: { RuntimeError: new (message: string) => Error } }).WebAssembly;
    expect((explainSamplingMemory(new RuntimeError('memory access out of bounds'), 64) as Error).message).toMatch(/sampling replies for 64 episodes at once.*es_manager\.train\.env_groups/);
    expect((explainScoringMemory(new RuntimeError('memory access out of bounds'), 4, 600) as Error).message).toMatch(/scoring 4 rows of up to 600 tokens.*lower actor_rollout_ref\.actor\.ppo_micro_batch_size_per_gpu .*\(now 4/);
    // Anything else a worker dies of stays an internal error with its stack.
    expect(workerFailure(2, new TypeError('x is undefined')).message).toMatch(/^worker 2 failed: TypeError: x is undefined/);
  });
});

describe('warm_start.batch_size', () => {
  const configs = join(import.meta.dirname, '../../configs');

  it("defaults to the actor's micro-batch and can be set apart from it", () => {
    // The shipped configs set their warm start's batch, so null stands for a config that does not.
    const following = loadRunConfig(join(configs, 'frozenlake-nonslip.yaml'), ['micro_batch_size_per_gpu=6', 'warm_start.batch_size=null']);
    expect(warmStartBatchSize(following)).toBe(6);
    const apart = loadRunConfig(join(configs, 'sokoban.yaml'), ['micro_batch_size_per_gpu=8', 'warm_start.batch_size=32']);
    expect(apart.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu).toBe(8);
    expect(warmStartBatchSize(apart)).toBe(32);
  });

  it('refuses a batch of no rows, naming the key', () => {
    expect(() => loadRunConfig(join(configs, 'sokoban.yaml'), ['warm_start.batch_size=0'])).toThrow(/warm_start\.batch_size/);
  });
});
