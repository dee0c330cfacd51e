// The words researchers type first from other tools (list, logs, compare, run, kill, ui...) name
// the TurnLab command that does it; misspellings get Commander's suggestion on the same line, and
// a misspelt required option is named as the unknown option it is, not as a missing one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoRoot, runTurnlab, runTurnlabInProcess } from '../helpers/turnlab-cli';
import { commandHint } from '../../main/cli/command-hints';
import { buildProgram } from '../../main/cli';

describe('unknown commands', () => {
  it.each([
    ['list', /^turnlab: unknown command 'list'; `turnlab runs` lists the runs/],
    ['logs', /^turnlab: unknown command 'logs'; `turnlab show <run> --log`/],
    ['compare', /^turnlab: unknown command 'compare'; `turnlab diff <runs\.\.\.>` compares configs/],
    ['run', /^turnlab: unknown command 'run'; `turnlab train --config <file>`/],
    ['Kill', /^turnlab: unknown command 'Kill'; `turnlab stop <runs\.\.\.>`/],
    ['ui', /^turnlab: unknown command 'ui'; `turnlab serve`/],
    ['trian', /^turnlab: unknown command 'trian'; did you mean train\?$/],
    ['zzz', /^turnlab: unknown command 'zzz'$/],
  ])('%s names what to type instead, in one line', async (word, message) => {
    const result = await runTurnlabInProcess([word, '1']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd()).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('names only commands that exist', () => {
    const commands = new Set(buildProgram().commands.map((c) => c.name()));
    for (const word of ['list', 'status', 'logs', 'watch', 'compare', 'rm', 'kill', 'run', 'continue', 'evaluate', 'ui', 'tb', 'multirun']) {
      const hint = commandHint(word)!;
      expect(hint, word).not.toBeNull();
      for (const named of hint.matchAll(/`turnlab ([a-z-]+)/g)) expect(commands, `${word}: ${named[1]}`).toContain(named[1]);
    }
    // A hint never shadows a real command.
    for (const command of commands) expect(commandHint(command), command).toBeNull();
  });

  it.each([
    [['train', '--confg', 'x'], "turnlab: unknown option '--confg'; did you mean --config?"],
    [['--data-dir', '/tmp/nowhere', 'train', '--confg=x'], "turnlab: unknown option '--confg'; did you mean --config?"],
    [['sweep', '--seeds', '2', '--Config', 'x'], "turnlab: unknown option '--Config'; did you mean --config?"],
    [['generate', '--modle', 'x', '--prompt', 'hi'], "turnlab: unknown option '--modle'; did you mean --model?"],
    [['train', '--zzzzzz'], "turnlab: unknown option '--zzzzzz'"],
    [['train', '--set', 'a=b'], 'turnlab: train needs a run config: --config <file> (a shipped one by name: --config bandit), or the file first: turnlab train configs/bandit.yaml'],
    [['sweep', '--config', 'bandit'], "turnlab: required option '--seeds <n|list>' not specified"],
  ])('names a misspelt required option as the unknown one it is: %j', async (argv, line) => {
    const result = await runTurnlabInProcess(argv);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(line);
  });

  it.each([
    // Commander's nearest flag for --steps was --seeds, which trains something else.
    [['train', '--config', 'bandit', '--steps', '5'], 'turnlab: --steps is no option of turnlab train; config keys are set as key=value after the command: trainer.total_training_steps=5 (or --set trainer.total_training_steps=5)'],
    [['--data-dir', '/tmp/x', 'resume', '1', '--lr=1e-4'], 'turnlab: --lr is no option of turnlab resume; config keys are set as key=value after the command: actor_rollout_ref.actor.optim.lr=1e-4 (or --set actor_rollout_ref.actor.optim.lr=1e-4)'],
    [['train', 'bandit', '--seed', '3'], 'turnlab: --seed is no option of turnlab train; config keys are set as key=value after the command: trainer.seed=3 (or --set trainer.seed=3); --seeds 3 trains a group of seeds 0..2'],
    [['sweep', 'bandit', '--seeds', '2', '--algorithm.gamma', '0.9'], 'turnlab: --algorithm.gamma is no option of turnlab sweep; config keys are set as key=value after the command: algorithm.gamma=0.9 (or --set algorithm.gamma=0.9)'],
    [['train', 'bandit', '--top_k'], 'turnlab: --top_k is no option of turnlab train; config keys are set as key=value after the command: actor_rollout_ref.rollout.top_k=<value> (or --set actor_rollout_ref.rollout.top_k=<value>); or actor_rollout_ref.rollout.val_kwargs.top_k'],
    // Several values to sweep are a --grid; a sweep missing its --seeds still names the key.
    [['sweep', 'bandit', '--seeds', '2', '--lr=1e-3,3e-4'], 'turnlab: --lr is no option of turnlab sweep; the values to try are --grid actor_rollout_ref.actor.optim.lr=1e-3,3e-4'],
    [['sweep', 'bandit', '--lr', '1e-3'], 'turnlab: --lr is no option of turnlab sweep; config keys are set as key=value after the command: actor_rollout_ref.actor.optim.lr=1e-3 (or --set actor_rollout_ref.actor.optim.lr=1e-3)'],
    // eval decodes with the validation's settings.
    [['eval', '1', '--temperature', '0'], 'turnlab: --temperature is no option of turnlab eval; config keys are set as key=value after the command: actor_rollout_ref.rollout.val_kwargs.temperature=0 (or --set actor_rollout_ref.rollout.val_kwargs.temperature=0); or actor_rollout_ref.rollout.temperature'],
    // A batch size is no one key here.
    [['train', 'bandit', '--batch-size', '8'], "turnlab: --batch-size is no option of turnlab train; a rollout's batch is es_manager.train.env_groups × es_manager.train.group_size episodes (verl's data.train_batch_size); an update's mini-batch is ppo_mini_batch_size=<episodes>, set as key=value after the command"],
    [['train', 'bandit', '--nothing-like-a-key', '1'], "turnlab: unknown option '--nothing-like-a-key'"],
    [['runs', '--steps', '2'], "turnlab: unknown option '--steps'"],
    // A missing argument: the command's usage, and where run ids come from when a run is missing.
    [['show'], "turnlab: missing required argument 'run': turnlab show [options] <run> (`turnlab runs` lists the runs)"],
    [['note', '1'], "turnlab: missing required argument 'text': turnlab note [options] <run> <text>"],
    // Hydra's own flags, as verl's scripts pass them.
    [['train', '--config-name', 'bandit'], "turnlab: --config-name is Hydra's; the config is a file or shipped name after the command (turnlab train sokoban) or --config FILE"],
    [['train', 'bandit', '--multirun', 'trainer.seed=1,2'], "turnlab: --multirun is Hydra's; a grid of settings is turnlab sweep CONFIG --grid key=v1,v2 [--seeds 0,1,2]"],
    // No command, or help of one that does not exist: one line after the help, no library code.
    [[], 'turnlab: name a command (above); turnlab help <command> shows its options'],
    [['help', 'rnus'], "turnlab: unknown command 'rnus'; did you mean runs?"],
    [['--data-dir', '', 'runs'], "turnlab: --data-dir is empty (an unset shell variable?); name a folder, or leave the option out for TURNLAB_DATA_DIR or the desktop app's folder"],
  ])('names the config key a flag stands for, and the usage of a command missing an argument: %j', async (argv, line) => {
    const result = await runTurnlabInProcess(argv);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(line);
  });

  it('prints the version with --version, as a real process', () => {
    const result = runTurnlab(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${(JSON.parse(readFileSync(`${repoRoot}/package.json`, 'utf8')) as { version: string }).version}\n`);
  });
});
