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
    [['train', '--set', 'a=b'], "turnlab: required option '--config <file>' not specified"],
  ])('names a misspelt required option as the unknown one it is: %j', async (argv, line) => {
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
