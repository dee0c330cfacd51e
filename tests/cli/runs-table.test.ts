// `turnlab runs`'s table: a run in its warm start reads as the Runs view says it, not `queued`.
import { describe, expect, it } from 'vitest';
import { runsTable } from '../../main/cli/runs';

const base = { id: 3, name: 'gui1', envTags: ['FrozenLake'], algorithm: 'grpo', bestValSuccess: null, createdAt: Date.UTC(2026, 11, 2) };
const progress = (phase: 'warm start' | 'expert iteration') => ({ phase, step: 32, steps: 60, loss: 0.52, startedAt: 0, updatedAt: 1 });

describe('turnlab runs', () => {
  it('says how far a warm start or expert iteration is instead of queued', () => {
    const table = runsTable([
      { ...base, status: 'queued', iterations: null, warmStartProgress: progress('warm start') },
      { ...base, id: 4, status: 'queued', iterations: null, warmStartProgress: progress('expert iteration') },
      { ...base, id: 5, status: 'queued', iterations: null, warmStartProgress: null },
      { ...base, id: 6, status: 'running', iterations: 2, warmStartProgress: progress('warm start') },
    ]);
    const statuses = table.split('\n').filter((line) => /│ [3-6] /.test(line)).map((line) => line.split('│')[3].trim());
    expect(statuses).toEqual(['warming up (32/60)', 'expert iteration (32/60)', 'queued', 'running']);
  });
});
