// `turnlab check <module>` as a module author runs it: one line per problem, exit 0 or 2.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as repo, runTurnlab } from '../helpers/turnlab-cli';

const fixture = (name: string) => join(repo, 'tests/envs/fixtures', name);

const check = (...args: string[]) => runTurnlab(['check', ...args]);

describe('turnlab check', () => {
  it('passes the shipped example, also copied outside the repository, and a class module', () => {
    const folder = mkdtempSync(join(tmpdir(), 'turnlab-check-'));
    try {
      const copy = join(folder, 'guess-number.ts');
      copyFileSync(join(repo, 'examples/custom-env/guess-number.ts'), copy);
      for (const module of [copy, fixture('class-env.ts')]) {
        const result = check(module, '--episodes', '4');
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/: ok; 4 seeds played twice with random actions/);
      }
      expect(check(copy, '--episodes', '3').stdout).toContain("solver's plan followed on 3");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);

  it('lists each problem of a broken module in one line naming the call and the field, exit code 2', () => {
    const module = fixture('check-broken.ts');
    const result = check(module);
    expect(result.code).toBe(2);
    const lines = result.stdout.trim().split('\n');
    for (const line of lines) expect(line.startsWith(`custom environment ${module}: `)).toBe(true);
    const problems = lines.map((line) => line.slice(`custom environment ${module}: `.length));
    expect(problems).toEqual([
      `renderState() returned player string "middle"; expected null or [row, col] (episode seed 0)`,
      `step("Jump") returned reward number NaN; expected a finite number (episode seed 0)`,
      `step("Jump") returned done string "yes"; expected true or false (episode seed 0)`,
      expect.stringMatching(/^seed 0 is not reproducible: reset\(0\) gave render\(\) "You stand on stone 0 \(episode 1\)\." on an instance that had played other episodes and "You stand on stone 0 \(episode 2\)\." on a fresh one; /),
      'solve(): its plan of 1 action left the episode unfinished; a plan must reach success (or solve() returns null) (episode seed 0)',
    ]);
    expect(result.stderr.trim()).toMatch(/^turnlab: custom environment .*check-broken\.ts: 5 problems \(listed above\)/);
  }, 300_000);

  it('reports a module that cannot be loaded or a misspelt option in one line', () => {
    const missing = check(fixture('nope.ts'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^turnlab: custom environment .*nope\.ts: file not found\n$/);
    const misspelt = check(join(repo, 'examples/custom-env/guess-number.ts'), '--set', 'max_guess=3');
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/unknown option 'max_guess'; did you mean 'max_guesses'\?/);
  }, 300_000);
});
