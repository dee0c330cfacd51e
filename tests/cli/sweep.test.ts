// `turnlab sweep --executor local`: a grid of settings x seeds trains on this machine as one seed
// group per setting; bad input is refused before any run starts or any job is submitted.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const root = mkdtempSync(join(tmpdir(), 'turnlab-sweep-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dataDir = join(root, 'data');
const turnlab = (...args: string[]) => runTurnlab(args, { dataDir });
/** Listings and refusals through main() in this process; the trainings run as real processes. */
const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir });
const config = join(repo, 'configs/bandit.yaml');

describe('turnlab sweep', () => {
  it('trains every setting as a seed group named by the setting that differs', async () => {
    const swept = turnlab('sweep', '--config', config, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=1', '--grid', 'algorithm.gamma=0.9,1.0', '--seeds', '1');
    expect(swept.code).toBe(0);
    // The sweep is named by its base and start, and its runs carry its tag beside their group's.
    const sweep = /^sweep (bandit-\d{8}-\d{6}): 2 runs in 2 seed groups, one group after the other; its runs are tagged sweep:\1 \(turnlab runs --where tag=sweep:\1\)$/m.exec(swept.stderr)?.[1];
    expect(sweep, swept.stderr).toBeDefined();
    expect(swept.stdout).toContain(`sweep ${sweep}: final validation success by setting, best first\n`);
    expect(swept.stdout).toMatch(/│ algorithm\.gamma +│ seeds +│ final val success \(mean ± std\) +│ best val success \(mean\) +│ seed group +│/);
    for (const gamma of ['0.9', '1.0']) expect(swept.stdout).toMatch(new RegExp(`│ ${gamma.replace('.', '\\.')} +│ 1 +│ [01]\\.\\d{3} \\(one run\\) +│ [01]\\.\\d{3} +│ bandit-gamma=${gamma.replace('.', '\\.')} +│`));
    const runs = JSON.parse((await inProcess('runs', '--json')).stdout) as Array<{ name: string; status: string; tags: string[]; config: { algorithm: { gamma: number } } }>;
    expect(runs.map((r) => [r.name, r.status, r.tags, r.config.algorithm.gamma]).sort()).toEqual([
      ['bandit-gamma=0.9-s0', 'completed', ['seeds:bandit-gamma=0.9', `sweep:${sweep}`], 0.9],
      ['bandit-gamma=1.0-s0', 'completed', ['seeds:bandit-gamma=1.0', `sweep:${sweep}`], 1],
    ]);
    const ofSweep = async (tag: string) => (JSON.parse((await inProcess('runs', '--json', '--where', `tag=${tag}`)).stdout) as Array<{ name: string }>).map((r) => r.name).sort();
    expect(await ofSweep(`sweep:${sweep}`)).toEqual(['bandit-gamma=0.9-s0', 'bandit-gamma=1.0-s0']);
    expect(await ofSweep('sweep:bandit')).toEqual([]);

    // Later, from another shell: the sweeps of the folder, and this one's table again, its
    // setting read back from the runs' configs.
    const listed = await inProcess('sweeps');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`│ ${sweep} +│ \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +│ 2 settings x 1 seed +│ algorithm\\.gamma +│ 2 completed +│ gamma=(0\\.9|1) +│ [01]\\.\\d{3} \\(one run\\) +│`));
    for (const name of [sweep!, `sweep:${sweep}`]) {
      const table = await inProcess('sweeps', name);
      expect(table.code).toBe(0);
      expect(table.stdout).toContain(`sweep ${sweep}: 2 settings x 1 seed, 2 completed; final validation success by setting, best first (its runs: turnlab runs --where tag=sweep:${sweep})\n`);
      for (const gamma of ['0.9', '1']) expect(table.stdout).toMatch(new RegExp(`│ ${gamma.replace('.', '\\.')} +│ 1 +│ [01]\\.\\d{3} \\(one run\\) +│ [01]\\.\\d{3} +│ bandit-gamma=${gamma === '1' ? '1\\.0' : '0\\.9'} +│`));
    }
    const json = JSON.parse((await inProcess('sweeps', sweep!, '--json')).stdout) as { axes: string[]; settings: Array<{ setting: Record<string, string>; finalValSuccess: number[] }> };
    expect(json.axes).toEqual(['algorithm.gamma']);
    expect(json.settings.map((s) => s.setting['algorithm.gamma']).sort()).toEqual(['0.9', '1']);
    const unknown = await inProcess('sweeps', 'bandit');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`turnlab: no sweep named bandit in ${dataDir}; the sweeps are: ${sweep} (turnlab sweeps)\n`);
  }, 180_000);

  it('leaves out the combinations no config accepts and trains the others, saying so', async () => {
    // PPO, PPO with bi-level GAE and GRPO in one grid: GRPO with bi-level GAE is no config.
    const grid = ['--grid', 'algorithm.adv_estimator=gae,grpo', '--grid', 'algorithm.bi_level_gae=false,true'];
    const swept = await inProcess('sweep', '--config', config, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=1', ...grid, '--seeds', '1', '--name', 'estimators');
    expect(swept.code, swept.stderr).toBe(0);
    expect(swept.stderr).toMatch(/^note: left out adv_estimator=grpo bi_level_gae=true: `algorithm\.bi_level_gae` is RAGEN's bi-level GAE, which only `adv_estimator: gae` reads/m);
    const sweep = /^sweep (estimators-\d{8}-\d{6}): 3 runs in 3 seed groups/m.exec(swept.stderr)?.[1];
    expect(sweep, swept.stderr).toBeDefined();
    const runs = JSON.parse((await inProcess('runs', '--json', '--where', `tag=sweep:${sweep}`)).stdout) as Array<{ status: string; config: { algorithm: { adv_estimator: string; bi_level_gae: boolean } } }>;
    expect(runs.map((r) => `${r.config.algorithm.adv_estimator} ${r.config.algorithm.bi_level_gae} ${r.status}`).sort()).toEqual(['gae false completed', 'gae true completed', 'grpo false completed']);
    // Its listing counts what it trains, not the grid's product, and says what was left out.
    const table = (await inProcess('sweeps', sweep!)).stdout;
    expect(table).toContain(`sweep ${sweep}: 3 settings x 1 seed, 1 combination left out, 3 completed;`);
    expect(table).toContain('left out, as no config accepts them: adv_estimator=grpo bi_level_gae=true\n');
    const json = JSON.parse((await inProcess('sweeps', sweep!, '--json')).stdout) as { skipped: unknown };
    expect(json.skipped).toEqual([{ 'algorithm.adv_estimator': 'grpo', 'algorithm.bi_level_gae': 'true' }]);

    // A grid nothing of which is accepted is refused whole, as a value no combination accepts is.
    const none = await inProcess('sweep', '--config', config, '--grid', 'algorithm.adv_estimator=grpo,rloo', '--grid', 'algorithm.bi_level_gae=true', '--seeds', '1');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^turnlab: --grid algorithm\.(adv_estimator=grpo,rloo \(the value grpo\)|bi_level_gae=true \(the value true\)): `algorithm\.bi_level_gae`/);
  }, 180_000);

  it('says where no sweep is', async () => {
    openStore(join(root, 'empty'), { create: true }).close();
    const empty = await runTurnlabInProcess(['sweeps'], { dataDir: join(root, 'empty') });
    expect(empty.stdout).toBe(`no sweeps in ${join(root, 'empty')} (turnlab sweep --grid key=a,b starts one)\n`);
  });

  it('refuses a bad grid key before anything is submitted, and slurm without a shared folder', async () => {
    const shared = join(root, 'shared');
    const bad = await inProcess('sweep', '--config', config, '--grid', 'algorithm.gama=0.9,1.0', '--seeds', '2', '--executor', 'slurm', '--remote-dir', shared);
    expect(bad.code).toBe(2);
    // The flag to fix is the --grid the user wrote, not a --set the sweep made of it.
    expect(bad.stderr).toBe('turnlab: --grid algorithm.gama=0.9,1.0 (the value 0.9): unknown key `algorithm.gama`; did you mean `algorithm.gamma`?\n');
    expect(existsSync(shared) ? readdirSync(shared) : []).toEqual([]);
    const badValue = await inProcess('sweep', '--config', config, '--grid', 'algorithm.gamma=0.9,high', '--seeds', '2');
    expect(badValue.stderr).toMatch(/^turnlab: --grid algorithm.gamma=0.9,high \(the value high\): `algorithm.gamma` must be a number/);
    expect(badValue.code).toBe(2);
    // Env options the config takes but the environment cannot start from are refused before the first setting trains, naming the setting.
    const sokoban = join(repo, 'configs/sokoban.yaml');
    const noBoard = await inProcess('sweep', '--config', sokoban, '--set', 'custom_envs.SimpleSokoban.env_config.dim_room=[4,4]', '--grid', 'custom_envs.SimpleSokoban.env_config.num_boxes=1,2', '--seeds', '1');
    expect(noBoard.stderr).toMatch(/^turnlab: with custom_envs\.SimpleSokoban\.env_config\.num_boxes=1 \(from --grid\): es_manager\.train: the environments cannot start an episode: sokoban: could not generate a 4x4 room with 1 box\(es\)/);
    expect(noBoard.code).toBe(2);
    const malformed = await inProcess('sweep', '--config', config, '--grid', 'gamma', '--seeds', '2');
    expect(malformed.stderr).toMatch(/^turnlab: --grid 'gamma' is not key=value1,value2/);
    expect(malformed.code).toBe(2);
    // Slurm's settings on a sweep trained here would be silently dropped: refused, named.
    const local = await inProcess('sweep', '--config', config, '--seeds', '2', '--partition', 'gpu', '--time', '01:00:00');
    expect(local.stderr).toMatch(/^turnlab: --partition, --time apply to --executor slurm; this sweep trains here \(--executor local\)$/m);
    expect(local.code).toBe(2);
    const noDir = await inProcess('sweep', '--config', config, '--seeds', '2', '--executor', 'slurm');
    expect(noDir.stderr).toMatch(/^turnlab: --executor slurm needs --remote-dir/);
    const relative = await inProcess('sweep', '--config', config, '--seeds', '2', '--executor', 'slurm', '--remote-dir', 'sweeps');
    expect(relative.stderr).toBe("turnlab: --remote-dir (remote_dir) 'sweeps' must be an absolute path, e.g. /shared/sweeps: the shared folder as the cluster nodes see it\n");
    expect(relative.code).toBe(2);
    expect(noDir.code).toBe(2);
    expect(JSON.parse((await inProcess('jobs', '--json')).stdout)).toEqual([]);
  }, 180_000);
});
