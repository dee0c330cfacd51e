import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { distance } from 'fastest-levenshtein';
import { closestName } from '../trainer-core';
import { clearInterrupted, INTERRUPTED_EXIT_CODE, UserError, wasInterrupted } from './cli/errors';
import { commandHint, configFlagHint, misspeltOption, usageHint } from './cli/command-hints';
import * as exportCommand from './cli/export';
import * as runsCommand from './cli/runs';
import * as groupsCommand from './cli/groups';
import * as showCommand from './cli/show';
import * as diffCommand from './cli/diff';
import * as manageCommand from './cli/manage';
import * as envsCommand from './cli/envs';
import * as playCommand from './cli/play';
import * as serveCommand from './cli/serve';
import * as trainCommand from './cli/train';
import * as evalCommand from './cli/eval';
import * as checkCommand from './cli/check';
import * as generateCommand from './cli/generate';
import * as exportModelCommand from './cli/export-model';
import * as backendsCommand from './cli/backends';
import * as bundlesCommand from './cli/bundles';
import * as sweepCommand from './cli/sweep';
import * as clusterJobsCommand from './cli/cluster-jobs';
import * as sweepsCommand from './cli/sweeps';

// Each command lives in its own module under cli/ and adds itself to the program.
const commandModules: Array<{ register(program: Command): void }> = [runsCommand, groupsCommand, showCommand, diffCommand, manageCommand, exportCommand, envsCommand, playCommand, checkCommand, trainCommand, evalCommand, generateCommand, exportModelCommand, backendsCommand, bundlesCommand, sweepCommand, clusterJobsCommand, sweepsCommand, serveCommand];

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('turnlab')
    .description('TurnLab: train and study multi-turn RL agents; every run lives in one SQLite file')
    .version(packageVersion(), '--version', "print TurnLab's version")
    .option('--data-dir <dir>', 'data folder (default: the desktop app folder; env TURNLAB_DATA_DIR)')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  for (const module of commandModules) module.register(program);
  return program;
}

/** The command `turnlab help <command>` asked about, if the arguments are that. */
function helpTopic(argv: readonly string[]): string | undefined {
  const words = argv.filter((word, i) => !word.startsWith('-') && argv[i - 1] !== '--data-dir');
  return words[0] === 'help' ? words[1] : undefined;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  clearInterrupted();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return wasInterrupted() ? INTERRUPTED_EXIT_CODE : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      // No command (the help went to stdout), or `help` of a command that does not exist.
      if (error.code === 'commander.help') {
        const named = helpTopic(argv);
        const near = named === undefined ? undefined : closestName(named, program.commands.map((c) => c.name()));
        const hint = named === undefined ? null : (commandHint(named) ?? (near !== undefined && distance(named, near) <= near.length / 2 ? `did you mean ${near}?` : null));
        process.stderr.write(named === undefined ? 'turnlab: name a command (above); turnlab help <command> shows its options\n' : `turnlab: unknown command '${named}'${hint ? `; ${hint}` : ''}\n`);
        return 2;
      }
      const unknown = error.code === 'commander.unknownCommand' ? /unknown command '([^']*)'/.exec(error.message)?.[1] : undefined;
      const hint = unknown === undefined ? null : commandHint(unknown);
      const unknownOption = error.code === 'commander.unknownOption' ? /unknown option '([^']*)'/.exec(error.message)?.[1] : undefined;
      const flagHint = unknownOption === undefined ? null : await configFlagHint(program, argv, unknownOption);
      if (flagHint) {
        process.stderr.write(`turnlab: ${flagHint}\n`);
        return 2;
      }
      const misspelt = error.code === 'commander.missingMandatoryOptionValue' || (error.code === 'commander.unknownOption' && error.message.includes('=')) ? misspeltOption(program, argv) : null;
      if (misspelt) {
        // `sweep --lr 1e-3` without its required --grid: a config key as a flag, said as above.
        const typed = /unknown option '([^']*)'/.exec(misspelt)?.[1];
        const keyHint = typed === undefined ? null : await configFlagHint(program, argv, typed);
        process.stderr.write(`turnlab: ${keyHint ?? misspelt}\n`);
        return 2;
      }
      // Commander puts its suggestion on a line of its own: one line, as every refusal here.
      let message = error.message.replace(/^error: /, '').replace(/\n\(Did you mean (.*)\?\)$/, '; did you mean $1?');
      if (error.code === 'commander.missingArgument') message += usageHint(program, argv, /argument '([^']*)'/.exec(error.message)?.[1] ?? '');
      process.stderr.write(`turnlab: ${hint ? `unknown command '${unknown}'; ${hint}` : message}\n`);
      return 2;
    }
    if (error instanceof UserError) {
      process.stderr.write(`turnlab: ${error.message}\n`);
      return error.exitCode;
    }
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if ((error as NodeJS.ErrnoException | null)?.syscall === 'write' && typeof code === 'string') {
      // stdout sent to a full disk or a closed pipe: the user's redirection, not a bug.
      process.stderr.write(`turnlab: cannot write the output: ${(error as Error).message.split('\n')[0]}; check where stdout goes\n`);
      return 2;
    }
    process.stderr.write(`turnlab: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
