import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

const tmp = tempDir('warm-start-progress');
afterAll(() => tmp.cleanup());

describe('a warm start', () => {
  it('reports its progress on the log about ten times and to the sink at every hundredth of its steps, then its final loss', async () => {
    const cfg = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'warm_start.steps=20',
      'trainer.total_training_steps=1',
      'trainer.val_before_train=false',
    ]);
    const lines: string[] = [];
    const { result, sink } = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'run'), log: (line) => lines.push(line) });
    expect(result.status).toBe('completed');
    // The backend is told before the warm start, as the run starts later.
    expect(sink.selected).toEqual({ backend: result.backend, device: result.device });
    const steps = lines.filter((line) => line.startsWith('warm start: step'));
    expect(steps.map((line) => line.match(/step (\d+)\/20/)?.[1])).toEqual(['2', '4', '6', '8', '10', '12', '14', '16', '18']);
    for (const line of steps) expect(line).toMatch(/, loss \d+\.\d{4}$/);
    const last = lines.findIndex((line) => line.startsWith('warm start (random-valid): 20 steps'));
    expect(last).toBeGreaterThan(lines.indexOf(steps[steps.length - 1]));
    // The sink gets the whole loss curve, one value a step, the last one the final loss logged.
    expect(sink.warmStart).toHaveLength(20);
    expect(sink.warmStart.every((loss) => Number.isFinite(loss) && loss > 0)).toBe(true);
    expect(lines[last]).toContain(`final loss ${sink.warmStart[19].toFixed(4)}`);
    expect(sink.warmStart[19]).toBeLessThan(sink.warmStart[0]);
    // The workbench's progress: step 0 as it begins, then each step (20 steps: a hundredth rounds
    // up to one), with that step's loss.
    expect(sink.warmStartReports).toEqual([
      { step: 0, steps: 20, loss: null, phase: 'warm start' },
      ...sink.warmStart.map((loss, i) => ({ step: i + 1, steps: 20, loss, phase: 'warm start' })),
    ]);
  }, 120_000);
});
