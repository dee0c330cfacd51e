// `turnlab train --seeds`: a group of runs differing only by trainer.seed, queued as child
// trainers, tagged as one group, with each run's progress and a summary table printed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-seeds-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const turnlab = (...args: string[]) => runTurnlab(args, { dataDir });
/** Listings and refusals through main() in this process; the trainings run as real processes. */
const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir });

const tiny = [...TINY_TRAIN, '--set', 'trainer.test_freq=1', '--set', 'trainer.save_freq=1', '--set', 'trainer.total_training_steps=1'];

interface RunRow {
  id: number;
  name: string;
  seed: number;
  status: string;
  tags: string[];
  iterations: number;
}

describe('turnlab train --seeds', () => {
  it('trains one run per seed, tagged as one group, and prints progress and a summary', async () => {
    const trained = turnlab('train', '--config', join(repo, 'configs/bandit.yaml'), '--name', 'grp', '--seeds', '2', '--concurrency', '2', ...tiny);
    expect(trained.stderr).toMatch(/seed group grp: 2 runs \(seeds 0, 1\), 2 at a time/);
    expect(trained.stderr).toMatch(/\[seed 0 run \d+\] iteration 1\/1 /);
    expect(trained.stderr).toMatch(/\[seed 1 run \d+\] iteration 1\/1 /);
    expect(trained.code).toBe(0);

    const runs = (JSON.parse((await inProcess('runs', '--json')).stdout) as RunRow[]).sort((a, b) => a.seed - b.seed);
    expect(runs.map((r) => [r.name, r.seed, r.status, r.tags])).toEqual([
      ['grp-s0', 0, 'completed', ['seeds:grp']],
      ['grp-s1', 1, 'completed', ['seeds:grp']],
    ]);

    const lines = trained.stdout.split('\n');
    expect(lines[0]).toBe('seed group grp');
    expect(trained.stdout).toMatch(/seed.*run.*status.*final val success.*wall time/);
    for (const run of runs) {
      const row = lines.find((l) => l.includes(`${run.id} (${run.name})`));
      expect(row).toMatch(new RegExp(`^│ ${run.seed} +│ ${run.id} \\(${run.name}\\) +│ completed +│ (0|1)\\.\\d{3} +│ \\d+ (s|min)`));
    }
  });

  it('refuses a bad seed list and a bad config key before any run starts', async () => {
    const bad = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), '--seeds', '1,x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/neither a count of seeds/);
    const badKey = await inProcess('train', '--config', join(repo, 'configs/bandit.yaml'), '--seeds', '2', '--set', 'agent_proxy.max_turns=3');
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/max_turns.*did you mean.*max_turn/);
    expect(JSON.parse((await inProcess('runs', '--json')).stdout)).toHaveLength(2);
  });

  it('on SIGTERM stops the running seed with a checkpoint and leaves the queued one unstarted', async () => {
    const child = spawn(
      process.execPath,
      [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'train', '--config', join(repo, 'configs/bandit.yaml'), '--name', 'halt', '--seeds', '2', '--concurrency', '1', ...TINY_TRAIN, '--set', 'trainer.total_training_steps=50'],
      { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/\[seed 0 run \d+\] iteration 1\/50/.test(stderr) && !child.killed) child.kill('SIGTERM');
      });
      child.on('close', (exitCode) => resolveExit(exitCode));
    });
    expect(stderr).toMatch(/stopping the group/);
    expect(code).toBe(0);
    const runs = (JSON.parse((await inProcess('runs', '--json')).stdout) as RunRow[]).filter((r) => r.tags.includes('seeds:halt'));
    expect(runs.map((r) => [r.name, r.status])).toEqual([['halt-s0', 'stopped']]);
    expect(existsSync(join(dataDir, `checkpoints/run-${runs[0].id}/iter-${runs[0].iterations}`))).toBe(true);
    expect(stdout).toMatch(/│ 0 +│ \d+ \(halt-s0\) +│ stopped /);
    expect(stdout).toMatch(/│ 1 +│ - +│ not started /);
  }, 240_000);
});
