// A new run's name and tags are held to the rules a rename and a retag are (preload/run-labels.ts):
// `train --name 5` made a run `show 5` could not reach, `--name=-x` one no command could name, and
// `--tag` took tags of any length; each is refused before a run is created, naming what to change.
// A tag that reads as an option is refused when added, yet a run that has one keeps it editable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { makeFixtureDataDir, type FixtureDataDir } from '../helpers/fixtures';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

describe("a new run's name and tags", () => {
  let fixture: FixtureDataDir;
  const turnlab = (args: string[]) => runTurnlabInProcess(args, { dataDir: fixture.dir });
  const stored = () => {
    const store = openStore(fixture.dir);
    try {
      return store.runs.list();
    } finally {
      store.close();
    }
  };
  const train = ['train', '--config', 'configs/bandit.yaml', '--set', 'trainer.total_training_steps=1'];

  beforeAll(() => {
    fixture = makeFixtureDataDir({ iterations: 2 });
  });

  afterAll(() => fixture?.cleanup());

  it('refuses, before a run exists, a name that reads as a run id or an option and a tag past the limits', async () => {
    const before = stored().length;
    const refusals: Array<[string[], string]> = [
      [['--name', '5'], "--name: a run name cannot be '5': commands would read it as a run id; add a word (run-5)"],
      [['--name=-x'], "--name: a run name cannot start with '-': commands would read it as an option; drop the dash (x)"],
      [['--set', 'trainer.experiment_name=ckpt:3'], "trainer.experiment_name: a run name cannot be 'ckpt:3': commands would read it as a checkpoint; add a word (run-3)"],
      [['--name', 'n'.repeat(201)], '--name: a run name holds at most 200 characters (this one has 201)'],
      [['--tag=-x'], "--tag: a tag cannot start with '-' ('-x'): commands would read it as an option; drop the dash (x)"],
      [['--tag', 't'.repeat(101)], `--tag: each of the tags holds at most 100 characters ('${'t'.repeat(20)}...' has 101)`],
      // A seed group's tag is seeds:<name>: a name too long for it is refused once, not by each seed.
      [['--seeds', '2', '--name', 'g'.repeat(99)], `--name (the group's tag seeds:<name> is made from it): each of the tags holds at most 100 characters ('seeds:${'g'.repeat(14)}...' has 105)`],
    ];
    for (const [args, message] of refusals) {
      const result = await turnlab([...train, ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(`turnlab: ${message}`);
    }
    // A fork is a new run too.
    const fork = await turnlab(['resume', String(fixture.runs[0].run.id), '--fork', '--name', '9']);
    expect(fork.stderr).toBe("turnlab: --name: a run name cannot be '9': commands would read it as a run id; add a word (run-9)\n");
    expect(stored()).toHaveLength(before);
  });

  it("refuses a tag added that reads as an option, and keeps a run that has one editable", async () => {
    const run = fixture.runs[0].run;
    expect((await turnlab(['tag', String(run.id), '--add=-x'])).stderr).toBe("turnlab: tags to add: a tag cannot start with '-' ('-x'): commands would read it as an option; drop the dash (x)\n");
    // A tag stored before the rule (or brought by an import) stays, and can be removed.
    const store = openStore(fixture.dir);
    try {
      store.runs.update(run.id, { tags: ['-old', 'kept'] });
    } finally {
      store.close();
    }
    expect((await turnlab(['tag', String(run.id), '--add', 'new'])).code).toBe(0);
    expect((await turnlab(['tag', String(run.id), '--remove=-old'])).code).toBe(0);
    expect(stored().find((r) => r.id === run.id)!.tags).toEqual(['kept', 'new']);
  });
});
