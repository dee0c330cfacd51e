// Overrides as verl's and RAGEN's scripts take them, Hydra's way: `trainer.total_training_steps=50`
// after the command, no `--set`. A researcher pasting a line from a verl example gets the run it
// describes, or a line saying what TurnLab does not take.
import { UserError } from './errors';

/**
 * The `key=value` arguments of a command, as `--set` takes them. Hydra's `+key=value` (add a key)
 * and `++key=value` (add or replace) are the same here; `~key` (delete) has no counterpart.
 */
export function hydraOverrides(args: readonly string[]): string[] {
  return args.map((arg) => {
    if (arg.startsWith('~')) {
      throw new UserError(`${arg}: deleting a key (Hydra's ~key) is not supported; set it to another value (${arg.slice(1).split('=')[0]}=...) or leave it out of the config file`);
    }
    const pair = arg.replace(/^\+\+?/, '');
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new UserError(`'${arg}' is not an override: write key=value after the command, e.g. trainer.total_training_steps=50 (or --set key=value)`);
    }
    return pair;
  });
}
