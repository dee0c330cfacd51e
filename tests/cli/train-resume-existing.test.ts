// `turnlab train --resume-existing`, what a Slurm task runs again when it is requeued: the data
// folder's run of that name continues from its latest checkpoint (a run left `running` by a
// trainer on another node is taken over only when SLURM_RESTART_COUNT says the job restarted), a
// run without a checkpoint is trained again from the start, a completed one is left as it is (one
// with its last iteration's checkpoint is marked completed), and
// a run of another config or a name several runs share is refused. Real training of tiny runs.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dir = makeTempDir('turnlab-resume-existing-');
afterAll(() => dir.cleanup());
const file = join(dir.dir, 'turnlab.sqlite');
const train = (name: string, total: number, env: Record<string, string | undefined> = { SLURM_RESTART_COUNT: undefined }) =>
  runTurnlabInProcess(
    ['train', '--config', join(repoRoot, 'configs/bandit.yaml'), ...TINY_TRAIN, '--set', 'trainer.save_freq=1', '--set', `trainer.total_training_steps=${total}`, '--name', name, '--resume-existing'],
    { dataDir: dir.dir, env },
  );
function sql<T>(statement: string, ...params: unknown[]): T[] {
  const db = new Database(file);
  try {
    const prepared = db.prepare(statement);
    return prepared.reader ? (prepared.all(...params) as T[]) : (prepared.run(...params), []);
  } finally {
    db.close();
  }
}
const runsNamed = (name: string) => sql<{ id: number; status: string }>('SELECT id, status FROM runs WHERE name = ? ORDER BY id', name);
const trainIterations = (runId: number) =>
  sql<{ iteration: number }>(`SELECT DISTINCT iteration FROM episodes WHERE run_id = ? AND split = 'train' ORDER BY iteration`, runId).map((r) => r.iteration);

describe('turnlab train --resume-existing', () => {
  it('trains a new run where none has the name, and leaves it alone once completed', async () => {
    expect((await train('fresh', 2)).code).toBe(0);
    const again = await train('fresh', 2);
    expect([again.code, again.stdout]).toEqual([0, `run 1 (fresh) completed already; nothing to train\n`]);
    expect(runsNamed('fresh')).toEqual([{ id: 1, status: 'completed' }]);
  }, 60_000);

  it('refuses a run of that name trained with another config, naming the setting', async () => {
    const other = await train('fresh', 3);
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(
      `turnlab: --resume-existing: run 1 (fresh) in ${dir.dir} trains another config (trainer.total_training_steps is 3 here, 2 in the run); give --name a name of its own to train a new run, it completed: turnlab resume 1 --set trainer.total_training_steps=N trains it further\n`,
    );
  });

  it("continues a run its trainer on another node left running: refused while that trainer may live, taken over when Slurm says the job restarted", async () => {
    expect((await train('killed', 4)).code).toBe(0);
    const [{ id }] = runsNamed('killed');
    // What a trainer killed on node7 after iteration 2 leaves: the run running, its heartbeat fresh, checkpoints to iteration 2.
    sql(`UPDATE runs SET status = 'running', trainer_pid = 4242, trainer_host = 'node7', trainer_started_at = ?, trainer_heartbeat_at = ? WHERE id = ?`, Date.now(), Date.now(), id);
    sql('DELETE FROM checkpoints WHERE run_id = ? AND iteration > 2', id);
    const busy = await train('killed', 4);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`^turnlab: cannot resume run ${id} \\(killed\\): process 4242 on host node7 is training it`));

    const requeued = await train('killed', 4, { SLURM_RESTART_COUNT: '1' });
    expect(requeued.code, requeued.stderr).toBe(0);
    expect(requeued.stderr).toContain(`continuing run ${id} (killed) from its latest checkpoint (--resume-existing)`);
    expect(requeued.stdout).toMatch(new RegExp(`^run ${id} \\(killed\\) completed at iteration 4\\n`));
    expect(runsNamed('killed')).toEqual([{ id, status: 'completed' }]);
    expect(trainIterations(id)).toEqual([1, 2, 3, 4]);
    expect(sql<{ n: number }>(`SELECT count(*) AS n FROM episodes WHERE run_id = ? AND split = 'train'`, id)[0].n).toBe(4 * 32);
  }, 90_000);

  it('trains again from the start a run that saved no checkpoint, in place of it', async () => {
    expect((await train('early', 2)).code).toBe(0);
    const [{ id }] = runsNamed('early');
    sql(`UPDATE runs SET status = 'running', trainer_pid = 4243, trainer_host = 'node7', trainer_heartbeat_at = ? WHERE id = ?`, Date.now(), id);
    sql('DELETE FROM checkpoints WHERE run_id = ?', id);
    const again = await train('early', 2, { SLURM_RESTART_COUNT: '2' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`run ${id} (early) saved no checkpoint to continue from: deleted, and trained again from the start (--resume-existing)\n`);
    const [run] = runsNamed('early');
    expect(runsNamed('early')).toEqual([{ id: run.id, status: 'completed' }]);
    expect(run.id).not.toBe(id);
    expect(trainIterations(run.id)).toEqual([1, 2]);
  }, 60_000);

  it('marks completed, and trains nothing, a run whose trainer ended after the checkpoint of its last iteration', async () => {
    expect((await train('last', 2)).code).toBe(0);
    const [{ id }] = runsNamed('last');
    // What a trainer that failed or was killed between its last checkpoint and its run's status leaves.
    sql(`UPDATE runs SET status = 'failed', error = 'killed' WHERE id = ?`, id);
    const again = await train('last', 2);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toBe(`run ${id} (last) has the checkpoint of its last iteration; its trainer ended (failed) before marking it completed: marked completed, nothing to train\n`);
    expect(sql<{ status: string; error: string | null }>('SELECT status, error FROM runs WHERE id = ?', id)).toEqual([{ status: 'completed', error: null }]);
    expect(trainIterations(id)).toEqual([1, 2]);
  }, 60_000);

  it('refuses a name two runs of the folder share, and --seeds', async () => {
    sql(`UPDATE runs SET name = 'fresh' WHERE name = 'early'`);
    const twice = await train('fresh', 2);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^turnlab: --resume-existing: runs \d+, \d+ of .* are all named 'fresh'; it continues one run of its name: give --name a name of its own, or delete the others \(turnlab delete\)\n$/);
    const seeds = await runTurnlabInProcess(['train', '--config', join(repoRoot, 'configs/bandit.yaml'), '--seeds', '2', '--resume-existing'], { dataDir: dir.dir });
    expect([seeds.code, seeds.stderr]).toEqual([2, 'turnlab: --resume-existing continues one run of its name; leave out --seeds (a seed group trains each seed once)\n']);
  });
});
