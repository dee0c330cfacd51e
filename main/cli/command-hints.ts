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
