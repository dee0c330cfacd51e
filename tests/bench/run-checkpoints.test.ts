// Where a run's warm-start policy is found: its own iter-0, a parent's (a fork), or the
// model.path it started from (a run from another run's iter-0 with warm_start.steps 0).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheckpoints } from '../../bench/lib/run-checkpoints';
import { openStore } from '../../main/store/db';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let tmp: TempDir | undefined;
afterEach(() => tmp?.cleanup());

function seed(dir: string): void {
  openStore(dir, { create: true }).close();
  const db = new Database(join(dir, 'turnlab.sqlite'));
  const run = db.prepare("INSERT INTO runs (id, name, created_at, config, config_hash, seed, algorithm, parent_run_id) VALUES (?, 'r', 0, ?, 'h', 0, 'grpo', ?)");
  run.run(1, JSON.stringify({ model: { path: null } }), null);
  run.run(2, JSON.stringify({ model: { path: null } }), 1);
  run.run(3, JSON.stringify({ model: { path: '/elsewhere/run-1/iter-0' } }), null);
  run.run(4, JSON.stringify({ model: { path: '/elsewhere/run-1/iter-0' }, expert_iteration: { rounds: 5 } }), null);
  const ckpt = db.prepare("INSERT INTO checkpoints (run_id, iteration, path, size_bytes, sha256, created_at) VALUES (?, ?, ?, 0, 's', 0)");
  ckpt.run(1, 0, 'checkpoints/run-1/iter-0');
  ckpt.run(1, 10, 'checkpoints/run-1/iter-10');
  ckpt.run(2, 20, 'checkpoints/run-2/iter-20');
  ckpt.run(3, 10, 'checkpoints/run-3/iter-10');
  ckpt.run(4, 0, 'checkpoints/run-4/iter-0');
  db.close();
}

describe('runCheckpoints', () => {
  it("finds the warm start in the run, up the parent chain, or at the run's model.path (before its expert iteration too)", () => {
    tmp = makeTempDir();
    seed(tmp.dir);
    expect(runCheckpoints(tmp.dir, 1).warm?.path).toBe('checkpoints/run-1/iter-0');
    expect(runCheckpoints(tmp.dir, 2)).toEqual({ checkpoints: [{ iteration: 20, path: 'checkpoints/run-2/iter-20' }], warm: { iteration: 0, path: 'checkpoints/run-1/iter-0' } });
    expect(runCheckpoints(tmp.dir, 3).warm).toEqual({ iteration: 0, path: '/elsewhere/run-1/iter-0' });
    // Expert iteration from another run's policy: its own iter-0 is a result, measured against where it started.
    expect(runCheckpoints(tmp.dir, 4)).toEqual({ checkpoints: [{ iteration: 0, path: 'checkpoints/run-4/iter-0' }], warm: { iteration: 0, path: '/elsewhere/run-1/iter-0' } });
  });
});
