// `turnlab sweep --executor local`: a grid of settings x seeds trains on this machine as one seed
// group per setting; bad input is refused before any run starts or any job is submitted.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterJobs } from '../../main/cluster/jobs';
import { openStore } from '../../main/store/db';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';
import { until } from '../helpers/until';

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
    // A file as the shared folder ended in an internal error (ENOTDIR from the cleanup); refused, kept.
    const file = join(root, 'not-a-folder');
    writeFileSync(file, 'keep me');
    const onFile = await inProcess('sweep', '--config', config, '--seeds', '2', '--executor', 'slurm', '--remote-dir', file);
    expect(onFile.stderr).toBe(`turnlab: --remote-dir (remote_dir) ${file} is a file, not a folder; give the shared folder the sweeps go in\n`);
    expect(onFile.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    // A --cluster file's values are checked as the flags are: a string for sbatch was split into
    // one #SBATCH line a character, cpus_per_task: eight reached sbatch as NaN.
    const cluster = (name: string, text: string) => {
      writeFileSync(join(root, name), text);
      return inProcess('sweep', '--config', config, '--seeds', '2', '--executor', 'slurm', '--cluster', join(root, name));
    };
    const cpus = await cluster('cpus.yaml', `remote_dir: ${shared}\ncpus_per_task: eight\n`);
    expect(cpus.stderr).toBe(`turnlab: ${join(root, 'cpus.yaml')}: cpus_per_task must be a whole number of 1 or more, not "eight"\n`);
    expect(cpus.code).toBe(2);
    const lines = await cluster('lines.yaml', `remote_dir: ${shared}\nsbatch: {mem: 32G}\n`);
    expect(lines.stderr).toMatch(/^turnlab: .*lines\.yaml: sbatch must be a list of #SBATCH flags, e.g. sbatch: \["--mem=32G", "--account=rl-lab"\]\n$/);
    const dashed = await cluster('dashed.yaml', `remote-dir: ${shared}\n`);
    expect(dashed.stderr).toMatch(/^turnlab: .*dashed\.yaml: unknown key 'remote-dir'; did you mean 'remote_dir'\? the keys are ssh, remote_dir,/);
    const list = await cluster('list.yaml', '- remote_dir\n');
    expect(list.stderr).toMatch(/^turnlab: .*list\.yaml is not a mapping of settings; write one key a line, e.g. remote_dir: \/shared\/me\/sweeps\n$/);
    // --local-dir naming another folder than --remote-dir: sbatch cannot open the script, and the
    // refusal says where it was written and where sbatch looked (sbatch as Slurm's answers then).
    const bin = join(root, 'sbatch-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'sbatch'), '#!/bin/sh\nfor a; do f="$a"; done\necho "sbatch: error: Unable to open file $f" >&2\nexit 1\n', { mode: 0o755 });
    const [here, there] = [join(root, 'here'), join(root, 'there')];
    mkdirSync(here);
    const apart = await runTurnlabInProcess(['sweep', '--config', config, '--seeds', '1', '--executor', 'slurm', '--remote-dir', there, '--local-dir', here], { dataDir, env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(apart.stderr).toMatch(new RegExp(`^turnlab: sbatch ${there}/\\S+/sweep\\.sbatch failed: sbatch: error: Unable to open file ${there}/\\S+/sweep\\.sbatch; the script was written to ${here}/\\S+/sweep\\.sbatch \\(--local-dir ${here}\\) and sbatch looked for it under --remote-dir ${there}: give as --local-dir the folder this machine sees --remote-dir as\n$`));
    expect(apart.code).toBe(2);
    expect(readdirSync(here)).toEqual([]);
    expect(JSON.parse((await inProcess('jobs', '--json')).stdout)).toEqual([]);
  }, 180_000);

  it('keeps following the jobs while the scheduler does not answer (slurmctld restarting), saying so once', async () => {
    // A job as a sweep records it, on a scheduler that cannot be reached: an scontrol first on
    // the PATH that answers as Slurm's does with slurmctld down. The watch ended with it.
    const watchDir = join(root, 'watch');
    const store = openStore(watchDir, { create: true });
    try {
      const table = new ClusterJobs(store);
      const [job] = table.insert([
        { sweep: 'w-20261203-100000', seedGroup: 'w', name: 'w-s0', seed: 0, loginHost: null, bundleDir: join(root, 'w-s0'), remoteBundleDir: join(root, 'w-s0'), trainArgs: [], turnlab: 'turnlab', resources: {} },
      ]);
      table.update(job.id, { jobId: '424242_0', state: 'running' });
    } finally {
      store.close();
    }
    const bin = join(root, 'down-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'scontrol'), '#!/bin/sh\necho "slurm_load_jobs error: Unable to contact slurm controller (connect failure)" >&2\nexit 1\n', { mode: 0o755 });
    const child = spawn(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', watchDir, 'jobs', '--watch'], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TURNLAB_JOB_POLL_MS: '200' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await until('the watch to say it cannot poll', () => (stderr.includes('cannot poll the scheduler') ? true : undefined), 60_000);
      // Polls go on (each a failed scontrol) without a line each, and the watch is still there.
      await new Promise((r) => setTimeout(r, 1500));
      expect(child.exitCode).toBeNull();
      expect(stderr).toMatch(/^cannot poll the scheduler: scontrol show job 424242 failed: slurm_load_jobs error: Unable to contact slurm controller \(connect failure\); trying again every 0\.2 s \(the jobs go on; Ctrl-C stops following\)\n$/);
    } finally {
      child.kill('SIGINT');
    }
    await exited;
    expect(stderr).toContain('stopped following; the jobs go on');
    // `jobs` alone shows the states seen last before Slurm's words.
    const once = await runTurnlabInProcess(['jobs'], { dataDir: watchDir, env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(once.code).toBe(2);
    expect(once.stdout).toMatch(/│ w-s0 +│ w +│ 424242_0 +│ running +│[\s\S]*\(states as seen last: the scheduler did not answer\)\n$/);
    expect(once.stderr).toBe('turnlab: scontrol show job 424242 failed: slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n');
  }, 120_000);
});
