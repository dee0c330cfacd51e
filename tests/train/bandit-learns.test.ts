import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { BANDIT_CONFIG, tempDir, trainInMemory } from './helpers';

const tmp = tempDir('bandit');
afterAll(() => tmp.cleanup());

describe('configs/bandit.yaml', () => {
  it('learns to pick the high-EV arm on a smaller budget', async () => {
    // The shipped config runs 60 iterations; a sixth of them already reaches the target.
    const config = loadRunConfig(BANDIT_CONFIG, ['trainer.backend=wasm', 'trainer.total_training_steps=10', 'trainer.test_freq=10']);
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'ckpt') });
    expect(result.status).toBe('completed');
    const before = sink.metrics.get(0)!['val/Bandit/success'];
    const after = sink.metrics.get(10)!['val/Bandit/success'];
    expect(after).toBeGreaterThanOrEqual(0.95);
    expect(after).toBeGreaterThan(before);
    expect(sink.metrics.get(10)!['val/Bandit/optimal_success']).toBe(1);
  });
});
