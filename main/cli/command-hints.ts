import type { Command } from 'commander';
import { distance } from 'fastest-levenshtein';

/**
 * What a researcher types first, from other tools (git, docker, W&B, Slurm, Hydra), mapped to the
 * TurnLab command that does it: an unknown command names the right one instead of failing bare
 * (Commander's own suggestion only catches misspellings, and offers `runs` for `run`).
 */
const HINTS: ReadonlyArray<[readonly string[], string]> = [
  [['list', 'ls', 'ps'], '`turnlab runs` lists the runs (`--where status=running` the live ones)'],
  [['status', 'info', 'describe', 'inspect'], '`turnlab show <run>` describes a run, `turnlab runs` lists them, `turnlab jobs` follows cluster tasks'],
  [['log', 'logs'], '`turnlab show <run> --log` prints what its trainers logged (`--follow` watches it)'],
  [['watch', 'tail', 'follow', 'attach'], '`turnlab show <run> --follow` watches a run training elsewhere'],
  [['compare', 'cmp'], '`turnlab diff <runs...>` compares configs, `turnlab runs --columns metric:<name>` metrics side by side, and `turnlab serve` opens the workbench\'s Compare view'],
  [['rm', 'remove', 'del', 'purge'], '`turnlab delete <runs...>` deletes runs (without --yes it lists what it would delete)'],
  [['kill', 'cancel', 'abort', 'halt', 'terminate'], '`turnlab stop <runs...>` stops runs after their iteration (`cancel-job` a cluster task)'],
  [['run', 'start', 'launch', 'fit', 'learn'], '`turnlab train --config <file>` trains a run (`--seeds 3` a group, `turnlab sweep` a grid)'],
  [['continue', 'restart', 'restore'], '`turnlab resume <run|ckpt:id>` continues a run from its latest checkpoint (`--fork` a child run)'],
  [['evaluate', 'test', 'validate', 'val', 'score'], '`turnlab eval [checkpoint]` plays a checkpoint\'s policy on validation episodes'],
  [['ui', 'gui', 'app', 'open', 'web', 'dashboard', 'board', 'server'], '`turnlab serve` opens the workbench in a browser (`npm run app` the desktop app)'],
  [['tensorboard', 'tb'], '`turnlab export <runs...> --format tfevents --out <folder>` writes TensorBoard event files'],
  [['version'], '`turnlab --version` prints the version'],
  [['multirun', 'grid', 'hpo'], '`turnlab sweep --grid key=v1,v2 --seeds 3` trains a grid of settings'],
  [['download', 'pull', 'fetch'], 'TurnLab reads Hugging Face folders already on disk or in the Hub cache: `--model <folder|org/name>` (docs/pretrained-models.md)'],
];

/** The TurnLab command for a word that is not one, or null. */
export function commandHint(word: string): string | null {
  const lower = word.toLowerCase();
  return HINTS.find(([words]) => words.includes(lower))?.[1] ?? null;
}

/** The command argv names, past the program's own options, and where it stands. */
function commandOf(program: Command, argv: readonly string[]): { command: Command; at: number } | null {
  const global = new Set(program.options.map((o) => o.long));
  let i = 0;
  while (i < argv.length && argv[i].startsWith('-')) i += global.has(argv[i].split('=')[0]) && !argv[i].includes('=') ? 2 : 1;
  const command = program.commands.find((c) => c.name() === argv[i] || c.aliases().includes(argv[i] ?? ''));
  return command ? { command, at: i } : null;
}

/**
 * Commander checks a command's required options before its unknown ones, so `train --confg x`
 * said that --config was missing. The unknown option the user typed, with the known one it is
 * nearest to (within a third of its length), or null when there is none.
 */
export function misspeltOption(program: Command, argv: readonly string[]): string | null {
  const found = commandOf(program, argv);
  if (!found) return null;
  const { command, at: i } = found;
  const known = [...command.options, ...program.options].flatMap((o) => (o.long ? [o.long] : []));
  for (const token of argv.slice(i + 1)) {
    if (token === '--') break;
    const typed = token.split('=')[0];
    if (!typed.startsWith('--') || known.includes(typed) || typed === '--help') continue;
    const near = known.map((name) => ({ name, d: distance(typed.toLowerCase(), name) })).sort((a, b) => a.d - b.d)[0];
    return `unknown option '${typed}'${near && near.d <= Math.max(2, Math.floor(near.name.length / 3)) ? `; did you mean ${near.name}?` : ''}`;
  }
  return null;
}

/** Flags researchers bring from other trainers' scripts, and the config key each one means. */
const FLAG_KEYS: Readonly<Record<string, string>> = {
  steps: 'trainer.total_training_steps',
  iterations: 'trainer.total_training_steps',
  iters: 'trainer.total_training_steps',
  total_steps: 'trainer.total_training_steps',
  max_steps: 'trainer.total_training_steps',
  num_steps: 'trainer.total_training_steps',
  training_steps: 'trainer.total_training_steps',
  lr: 'actor_rollout_ref.actor.optim.lr',
  learning_rate: 'actor_rollout_ref.actor.optim.lr',
  epochs: 'actor_rollout_ref.actor.ppo_epochs',
  backend: 'trainer.backend',
  device: 'trainer.backend',
  workers: 'trainer.workers',
  threads: 'trainer.workers',
  estimator: 'algorithm.adv_estimator',
  algorithm: 'algorithm.adv_estimator',
  algo: 'algorithm.adv_estimator',
  seed: 'trainer.seed',
  model: 'actor_rollout_ref.model.path',
  model_path: 'actor_rollout_ref.model.path',
  max_turns: 'agent_proxy.max_turn',
  turns: 'agent_proxy.max_turn',
};

/** Flags whose meaning is no one key here: what does their work, in a line. */
const FLAG_MEANINGS: Readonly<Record<string, string>> = {
  batch_size: "a rollout's batch is es_manager.train.env_groups × es_manager.train.group_size episodes (verl's data.train_batch_size); an update's mini-batch is ppo_mini_batch_size=<episodes>",
  train_batch_size: "a rollout's batch is es_manager.train.env_groups × es_manager.train.group_size episodes (verl's data.train_batch_size); an update's mini-batch is ppo_mini_batch_size=<episodes>",
  mini_batch_size: "an update's mini-batch is ppo_mini_batch_size=<episodes> (the actor's and critic's refer to it)",
};

/** Hydra's own flags (verl's scripts pass them), and what does their work here. */
const HYDRA_FLAGS: Readonly<Record<string, string>> = {
  config_name: 'the config is a file or shipped name after the command (turnlab train sokoban) or --config FILE',
  cn: 'the config is a file or shipped name after the command (turnlab train sokoban) or --config FILE',
  config_path: 'give the file itself: turnlab train path/to/config.yaml (or --config path/to/config.yaml)',
  cp: 'give the file itself: turnlab train path/to/config.yaml (or --config path/to/config.yaml)',
  multirun: 'a grid of settings is turnlab sweep CONFIG --grid key=v1,v2 [--seeds 0,1,2]',
  m: 'a grid of settings is turnlab sweep CONFIG --grid key=v1,v2 [--seeds 0,1,2]',
};

/** Commands whose run config takes `key=value` overrides after the command. */
const CONFIG_COMMANDS = new Set(['train', 'resume', 'sweep', 'eval']);

/**
 * `turnlab train --config bandit --steps 5`: a config key typed as a flag, as other trainers'
 * scripts take them. Commander offered the nearest flag (`--seeds`), which trains something else;
 * the line names the config key instead, with the value given. Null for any other unknown option.
 */
export async function configFlagHint(program: Command, argv: readonly string[], typed: string): Promise<string | null> {
  const command = commandOf(program, argv)?.command;
  if (!command || !CONFIG_COMMANDS.has(command.name())) return null;
  const flag = typed.split('=')[0];
  const word = flag.replace(/^-+/, '').replace(/-/g, '_');
  const hydra = HYDRA_FLAGS[word];
  if (hydra) return `${flag} is Hydra's; ${hydra}`;
  const meaning = FLAG_MEANINGS[word];
  if (meaning) return `${flag} is no option of turnlab ${command.name()}; ${meaning}, set as key=value after the command`;
  const [{ defaultRunConfigInput, policyFirst }, { flattenConfig }] = await Promise.all([import('../../trainer-core'), import('../../preload/config-diff')]);
  const keys = Object.keys(flattenConfig(defaultRunConfigInput()));
  const isKey = (key: string) => keys.some((k) => k === key || k.startsWith(`${key}.`));
  const matches = word.includes('.') ? (isKey(word) ? [word] : []) : FLAG_KEYS[word] ? [FLAG_KEYS[word]] : keys.filter((k) => k.split('.').pop() === word);
  if (matches.length === 0) return null;
  const at = argv.findIndex((a) => a === typed || a.startsWith(`${flag}=`));
  const token = at >= 0 ? argv[at] : typed;
  const value = token.includes('=') ? token.slice(token.indexOf('=') + 1) : argv[at + 1] !== undefined && !argv[at + 1].startsWith('-') && at >= 0 ? argv[at + 1] : '<value>';
  // The key a short name means, as the config's own suggestions pick it (the policy's first);
  // eval decodes with the validation's settings, so there a sampling flag means val_kwargs'.
  const key = (command.name() === 'eval' ? matches.find((k) => k.includes('.val_kwargs.')) : undefined) ?? policyFirst(matches);
  const others = matches.filter((m) => m !== key);
  // Several values are a grid, which sweep takes as --grid (a --set takes one value).
  const grid = command.name() === 'sweep' && value.includes(',');
  const set = grid ? '' : command.options.some((o) => o.long === '--set') ? ` (or --set ${key}=${value})` : '';
  const also = others.length > 0 ? `; or ${others.slice(0, 3).join(', ')}` : '';
  const seeds = word === 'seed' && command.options.some((o) => o.long === '--seeds') ? `; --seeds 3 trains a group of seeds 0..2` : '';
  if (grid) return `${flag} is no option of turnlab sweep; the values to try are --grid ${key}=${value}${also}`;
  return `${flag} is no option of turnlab ${command.name()}; config keys are set as key=value after the command: ${key}=${value}${set}${also}${seeds}`;
}

/**
 * `turnlab show` without its run: the command's usage after Commander's "missing required
 * argument 'run'", and where a run's id comes from when a run is what is missing.
 */
export function usageHint(program: Command, argv: readonly string[], missing: string): string {
  const command = commandOf(program, argv)?.command;
  if (!command) return '';
  return `: turnlab ${command.name()} ${command.usage()}${/^run/.test(missing) ? ' (`turnlab runs` lists the runs)' : ''}`;
}
