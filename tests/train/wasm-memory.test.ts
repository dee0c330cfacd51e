// The wasm heap stops at 4 GB: a run whose micro-batch needs most of it for attention once its
// episodes fill the context is told so as it starts, not minutes later by an out-of-memory error.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { wasmMemoryWarning } from '../../trainer-core/compute';
import { prepareRun } from '../../main/services/prepare-run';
import { repoRoot } from '../helpers/turnlab-cli';

const config = (name: string, overrides: string[] = []) => loadRunConfig(join(repoRoot, 'configs', name), overrides);

describe('the wasm heap warning', () => {
  it("warns for the defaults (4 rows at 2,048 tokens ran the heap out) and for no other shipped config", () => {
    expect(wasmMemoryWarning(config('base.yaml'))).toBe(
      'warning: on the wasm backend (a 4 GB heap) a micro-batch of 4 rows at the full context of 2048 tokens needs about 3.0 GB for attention\'s backward pass alone, ' +
        'and will likely run out of memory once episodes grow that long: lower micro_batch_size_per_gpu or model.context_length (or agent_proxy.max_turn, actor_rollout_ref.rollout.response_length), ' +
        'set actor_rollout_ref.model.enable_gradient_checkpointing=true, or use a native backend (turnlab backends)',
    );
    const others = readdirSync(join(repoRoot, 'configs')).filter((f) => f.endsWith('.yaml') && f !== 'base.yaml');
    expect(others.length).toBeGreaterThan(5);
    for (const name of others) expect([name, wasmMemoryWarning(config(name))]).toEqual([name, null]);
  });

  it('goes away with what it suggests', () => {
    expect(wasmMemoryWarning(config('base.yaml', ['micro_batch_size_per_gpu=2']))).toBeNull();
    expect(wasmMemoryWarning(config('base.yaml', ['model.context_length=1024']))).toBeNull();
    expect(wasmMemoryWarning(config('base.yaml', ['actor_rollout_ref.model.enable_gradient_checkpointing=true']))).toBeNull();
  });

  it('is logged as the run is prepared on wasm, before any run exists', async () => {
    const lines: string[] = [];
    await prepareRun(config('base.yaml', ['trainer.backend=wasm']), repoRoot, { log: (line) => lines.push(line) });
    expect(lines.filter((l) => l.startsWith('warning: on the wasm backend'))).toHaveLength(1);
  });
});
