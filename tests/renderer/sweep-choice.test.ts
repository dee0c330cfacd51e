// The New run form's sweep fields: what they refuse before Start, in the words the form shows.
import { describe, expect, it } from 'vitest';
import { readSweepChoice, type SweepChoice } from '../../renderer/src/stores/sweep-choice';

const slurm = (patch: Partial<SweepChoice>): SweepChoice => ({
  gridText: 'algorithm.gamma=0.9,1.0', executor: 'slurm', remoteDir: '/shared/sweeps', localDir: '', sbatchText: '', ssh: '', partition: '', time: '', gres: '', cpusPerTask: '', turnlab: '', ...patch,
});

describe('sweep fields', () => {
  it('takes an absolute shared folder and refuses a relative one, which the nodes and this machine would read apart', () => {
    expect(readSweepChoice(slurm({}))).toMatchObject({ active: true, settings: 2, problem: null, request: { executor: 'slurm', slurm: { remoteDir: '/shared/sweeps' } } });
    expect(readSweepChoice(slurm({ remoteDir: 'sweeps' })).problem).toMatch(/^the shared folder 'sweeps' must be an absolute path as the nodes see it/);
    expect(readSweepChoice(slurm({ remoteDir: ' ' })).problem).toBe('a Slurm sweep needs a shared folder: where the nodes write the run bundles');
    expect(readSweepChoice(slurm({ cpusPerTask: '0' })).problem).toBe("cpus per task '0' is not a whole number of 1 or more");
  });
});

describe('extra sbatch lines and the local folder', () => {
  it('passes one flag a line, and refuses a line that is no flag and a relative local folder', () => {
    expect(readSweepChoice(slurm({ sbatchText: '--mem=32G\n#SBATCH --account=rl\n\n', localDir: '/mnt/shared/sweeps' })).request.slurm).toMatchObject({
      sbatch: ['--mem=32G', '--account=rl'],
      localDir: '/mnt/shared/sweeps',
    });
    expect(readSweepChoice(slurm({ sbatchText: 'mem 32G' })).problem).toBe("the #SBATCH line 'mem 32G' is not an sbatch flag: write one a line as sbatch reads it, e.g. --mem=32G");
    expect(readSweepChoice(slurm({ localDir: 'sweeps' })).problem).toMatch(/^the local folder 'sweeps' must be an absolute path/);
    // The grid field's lines carry no --grid flag, and its problems name none.
    expect(readSweepChoice(slurm({ gridText: 'lr' })).problem).toBe("the grid line 'lr' is not key=value1,value2 (e.g. actor_rollout_ref.actor.optim.lr=1e-3,3e-4)");
    expect(readSweepChoice(slurm({ gridText: 'a=1,,2' })).problem).toBe("the grid line 'a=1,,2' has an empty value; separate values by single commas");
    expect(readSweepChoice(slurm({ gridText: 'a=1,2\na=3' })).problem).toBe('the grid names a on two lines; put all its values on one line (a=value1,value2)');
    // sbatch's time forms pass; anything else is said in the form, not by sbatch after submitting.
    for (const time of ['90', '30:00', '01:30:00', '1-12', '1-12:00', '2-00:00:00', 'UNLIMITED']) expect(readSweepChoice(slurm({ time })).problem).toBeNull();
    expect(readSweepChoice(slurm({ time: '1h' })).problem).toBe("time limit '1h' is not one sbatch reads: minutes (90), hours:minutes:seconds (01:30:00) or days-hours:minutes (1-12:00)");
  });
});
