// Expanding a sweep and reading Slurm's answers back: pure functions, checked without a cluster.
import { describe, expect, it } from 'vitest';
import { arrayScript, jobStateOf, parseScontrol, sbatch } from '../../main/cluster/slurm';
import { expandGrid, parseGridAxis, planSweep, sweepName, sweepOf, sweepTag } from '../../preload/sweep-plan';

describe('sweep plans', () => {
  it('names each seed group by the settings that differ and each run by its seed', () => {
    const axes = [parseGridAxis('actor_rollout_ref.actor.optim.lr=1e-3,3e-4'), parseGridAxis('trainer.total_training_steps=10'), parseGridAxis('algorithm.gamma=0.9,1.0')];
    const plan = planSweep('bandit', expandGrid(axes), [0, 1], ['bandit-lr=1e-3,gamma=0.9']);
    expect(plan.groups.map((g) => g.name)).toEqual(['bandit-lr=1e-3,gamma=0.9#2', 'bandit-lr=1e-3,gamma=1.0', 'bandit-lr=3e-4,gamma=0.9', 'bandit-lr=3e-4,gamma=1.0']);
    expect(plan.runs).toHaveLength(8);
    expect(plan.runs[3]).toEqual({
      seedGroup: 'bandit-lr=1e-3,gamma=1.0',
      name: 'bandit-lr=1e-3,gamma=1.0-s1',
      seed: 1,
      overrides: ['actor_rollout_ref.actor.optim.lr=1e-3', 'trainer.total_training_steps=10', 'algorithm.gamma=1.0', 'trainer.seed=1'],
      tag: 'seeds:bandit-lr=1e-3,gamma=1.0',
    });
    expect(planSweep('bandit', expandGrid([]), [0, 1, 2], []).runs.map((r) => r.name)).toEqual(['bandit-s0', 'bandit-s1', 'bandit-s2']);
  });

  it('refuses a malformed --grid, a key given twice and a sweep too large', () => {
    expect(() => parseGridAxis('lr')).toThrow(/--grid 'lr' is not key=value1,value2/);
    expect(() => parseGridAxis('a.lr=1,,2')).toThrow(/empty value/);
    expect(() => expandGrid([parseGridAxis('a=1,2'), parseGridAxis('a=3')])).toThrow(/names a twice/);
    const big = parseGridAxis(`a=${Array.from({ length: 100 }, (_, i) => i).join(',')}`);
    expect(() => planSweep('b', expandGrid([big]), [0, 1, 2], [])).toThrow(/300 runs; at most 256/);
  });

  it('names a sweep by its base and start, a folder name, apart from the sweeps already taken', () => {
    const at = new Date('2026-11-30T19:26:05.123Z');
    expect(sweepName('bandit', at, [])).toBe('bandit-20261130-192605');
    expect(sweepName('my lr/sweep', at, [])).toBe('my_lr_sweep-20261130-192605');
    expect(sweepName('bandit', at, ['bandit-20261130-192605', 'bandit-20261130-192605.2'])).toBe('bandit-20261130-192605.3');
    expect(sweepTag('bandit-20261130-192605')).toBe('sweep:bandit-20261130-192605');
    expect(sweepOf(['seeds:bandit-gamma=0.9', 'sweep:bandit-20261130-192605'])).toBe('bandit-20261130-192605');
    expect(sweepOf(['seeds:bandit', 'sweeps'])).toBeNull();
  });
});

describe('Slurm tools', () => {
  it('reads scontrol show job -o for array tasks, pending ranges and plain jobs', () => {
    const text = [
      'JobId=7 ArrayJobId=7 ArrayTaskId=2-3 JobName=x JobState=PENDING Reason=Resources Dependency=(null) ExitCode=0:0',
      'JobId=9 ArrayJobId=7 ArrayTaskId=1 JobName=x JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0',
      'JobId=8 ArrayJobId=7 ArrayTaskId=0 JobName=x JobState=CANCELLED Reason=None ExitCode=0:15',
      'JobId=12 JobName=y JobState=TIMEOUT Reason=TimeLimit ExitCode=0:0',
    ].join('\n');
    expect(parseScontrol(text)).toEqual([
      { id: '7_2', state: 'pending', reason: 'Resources' },
      { id: '7_3', state: 'pending', reason: 'Resources' },
      { id: '7_1', state: 'failed', reason: 'NonZeroExitCode, exit code 2:0' },
      { id: '7_0', state: 'cancelled', reason: null },
      { id: '12', state: 'timeout', reason: null },
    ]);
    expect(jobStateOf('CANCELLED+')).toBe('cancelled');
    expect(jobStateOf('COMPLETING')).toBe('running');
  });

  it('writes one array script whose tasks exec turnlab in their own bundle, with the #SBATCH settings', () => {
    const script = arrayScript({
      jobName: 'turnlab-s',
      outputDir: '/shared/s',
      turnlab: '/usr/bin/node /opt/turnlab/bin/turnlab.js',
      tasks: [
        { bundleDir: '/shared/s/a', args: ['train', '--config', '/c.yaml', '--name', "it's"] },
        { bundleDir: '/shared/s/b', args: ['train', '--config', '/c.yaml'] },
      ],
      resources: { partition: 'gpu', time: '01:00:00', gres: 'gpu:1', extra: ['--account=abc', '#SBATCH --mem=8G'] },
    });
    expect(script).toContain('#SBATCH --array=0-1\n#SBATCH --output=/shared/s/slurm-%A_%a.out\n#SBATCH --open-mode=append\n#SBATCH --partition=gpu\n#SBATCH --time=01:00:00\n#SBATCH --cpus-per-task=1\n#SBATCH --gres=gpu:1\n#SBATCH --account=abc\n#SBATCH --mem=8G\n');
    expect(script).toContain(`  0) bundle=/shared/s/a; set -- train --config /c.yaml --name 'it'\\''s' ;;`);
    expect(script).toContain('exec /usr/bin/node /opt/turnlab/bin/turnlab.js --data-dir "$bundle" "$@"');
  });

  it('refuses a setting that would write a second line into the script, and an extra line that is no flag', () => {
    const script = (resources: Parameters<typeof arrayScript>[0]['resources']) => () =>
      arrayScript({ jobName: 'j', outputDir: '/shared/s', turnlab: 'turnlab', tasks: [{ bundleDir: '/shared/s/a', args: ['train'] }], resources });
    expect(script({ time: '01:00:00\nrm -rf ~' })).toThrow("the time setting '01:00:00 rm -rf ~' holds a line break; give it on one line");
    expect(script({ extra: ['--mem=8G\necho hi'] })).toThrow(/^the #SBATCH line '--mem=8G echo hi' is not one sbatch flag/);
    expect(script({ extra: ['mem=8G'] })).toThrow(/is not one sbatch flag; write each as sbatch reads it, e.g. --mem=32G$/);
    expect(script({ time: '2 hours' })).toThrow(/^time limit '2 hours' is not one sbatch reads/);
  });

  it("says why sbatch refused a script in sbatch's words, not its closing `Try \"sbatch --help\"` line", async () => {
    const refusing = (stderr: string) => ({ host: null, run: () => Promise.resolve({ code: 1, stdout: '', stderr }) });
    await expect(sbatch(refusing('sbatch: unrecognized option \'--bogus=1\'\nTry "sbatch --help" for more information\n'), '/shared/s/sweep.sbatch')).rejects.toThrow(
      "sbatch /shared/s/sweep.sbatch failed: sbatch: unrecognized option '--bogus=1'",
    );
    await expect(sbatch(refusing('sbatch: error: invalid partition specified: gpu\nsbatch: error: Batch job submission failed: Invalid partition name specified\n'), '/s.sbatch')).rejects.toThrow(
      'sbatch /s.sbatch failed: sbatch: error: invalid partition specified: gpu; sbatch: error: Batch job submission failed: Invalid partition name specified',
    );
  });
});
