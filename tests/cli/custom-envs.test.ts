// Custom environments as a user outside the repository uses them: the shipped example and
// fixture modules through the real `turnlab` command, from a working folder outside the checkout
// (the runs listed, and a config refused before any module loads, through its entry point in this process).
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess } from '../helpers/turnlab-cli';

const example = join(repo, 'examples/custom-env/guess-number.ts');
const exampleConfig = join(repo, 'examples/custom-env/guess-number.yaml');
const fixtures = join(repo, 'tests/envs/fixtures');
const work = mkdtempSync(join(tmpdir(), 'turnlab-custom-envs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const turnlab = (args: string[], options: { dataDir?: string; input?: string } = {}) => runTurnlab(args, { ...options, cwd: work });

const tiny = [
  '--set', 'trainer.backend=wasm',
  '--set', 'trainer.total_training_steps=1',
  '--set', 'trainer.val_before_train=false',
  '--set', 'model.n_layer=1',
  '--set', 'model.d_model=16',
  '--set', 'model.d_ff=32',
  '--set', 'es_manager.train.env_groups=2',
  '--set', 'es_manager.train.group_size=2',
  '--set', 'es_manager.train.env_configs.n_groups=[2]',
  '--set', 'warm_start.steps=2',
];

/** The last line of stderr; a user-facing failure prints exactly one `turnlab:` line and no stack. */
function failureLine(stderr: string): string {
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
  const lines = stderr.trim().split('\n').filter((line) => line.startsWith('turnlab:'));
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('custom environments from the command line', () => {
  it('evaluates a checkpoint of the shipped example (issue 17.7)', () => {
    const dataDir = join(work, 'data-eval');
    const trained = turnlab(['train', '--config', exampleConfig, ...tiny], { dataDir });
    expect(trained.stderr).not.toMatch(/internal error/);
    expect(trained.code).toBe(0);
    // From another folder: the run stored the module as an absolute path.
    const evaluated = turnlab(['eval', '1', '--episodes', '4', '--json'], { dataDir });
    expect(evaluated.stderr).not.toMatch(/unknown environment/);
    expect(evaluated.code).toBe(0);
    const report = JSON.parse(evaluated.stdout) as { episodes: number; metrics: Record<string, number> };
    expect(report.episodes).toBe(4);
    expect(report.metrics).toHaveProperty('val/GuessNumber/success');
    // 1..16 with 4 guesses: halving finds 15 of the 16 secrets.
    expect(report.metrics['val/GuessNumber/optimal_success']).toBe(0.9375);
  }, 300_000);

  it('names the missing `module` key for env_type custom, instead of suggesting a built-in (17.7)', async () => {
    const config = join(work, 'no-module.yaml');
    writeFileSync(
      config,
      [
        'es_manager:',
        '  train: {env_groups: 1, group_size: 2, env_configs: {tags: [Mine], n_groups: [1]}}',
        '  val: {env_groups: 1, group_size: 1, env_configs: {tags: [Mine], n_groups: [1]}}',
        'custom_envs:',
        '  Mine: {env_type: custom}',
        '',
      ].join('\n'),
    );
    const result = await runTurnlabInProcess(['train', '--config', config], { dataDir: join(work, 'data-no-module') });
    expect(result.code).toBe(2);
    const line = failureLine(result.stderr);
    expect(line).toContain('`custom_envs.Mine.module` is missing');
    expect(line).not.toMatch(/did you mean/);
  }, 300_000);

  it('loads .ts and .js modules from a folder without package.json, importing turnlab/env (17.8, 17.9)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'turnlab-user-env-'));
    try {
      const copy = join(folder, 'guess-number.ts');
      copyFileSync(example, copy);
      const solved = turnlab(['play', copy, '--seed', '4', '--set', 'max_number=50', '--solve']);
      expect(solved.stderr).toBe('');
      expect(solved.code).toBe(0);
      const played = turnlab(['play', copy, '--seed', '4', '--set', 'max_number=50'], { input: solved.stdout });
      expect(played.code).toBe(0);
      expect(played.stdout).toMatch(/Episode finished: return 1, success: true/);

      const plain = join(folder, 'coin.js');
      writeFileSync(
        plain,
        [
          "import { defineEnv } from 'turnlab/env';",
          'export default defineEnv({ type: "coin", create: () => ({',
          '  reset: () => "Say Heads.", render: () => "Say Heads.", renderState: () => ({ kind: "text", text: "" }),',
          '  instructions: () => "Say heads.", legend: () => "", actionNames: () => ["Heads", "Tails"],',
          '  step: (a) => ({ observation: "", reward: a === "Heads" ? 1 : 0, done: true, info: { success: a === "Heads", actionIsValid: true, actionIsEffective: true } }),',
          '}) });',
          '',
        ].join('\n'),
      );
      const coin = turnlab(['play', plain], { input: 'Heads\n' });
      expect(coin.stderr).toBe('');
      expect(coin.stdout).toContain('Episode finished: return 1, success: true, steps: 1');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);

  it('reports a misspelt env option in a training config as play does: one line, exit code 2 (17.9)', () => {
    const played = turnlab(['play', example, '--set', 'max_numbr=5']);
    expect(played.code).toBe(2);
    const playLine = failureLine(played.stderr).replace(/^turnlab: /, '');
    expect(playLine).toMatch(/unknown option 'max_numbr'; did you mean 'max_number'\?/);
    const trained = turnlab(['train', '--config', exampleConfig, ...tiny, '--set', 'custom_envs.GuessNumber.env_config.max_numbr=5'], {
      dataDir: join(work, 'data-misspelt'),
    });
    expect(trained.code).toBe(2);
    expect(failureLine(trained.stderr)).toBe(`turnlab: custom_envs.GuessNumber.env_config: ${playLine}`);
  }, 300_000);

  it('refuses a run whose env throws or returns garbage, or whose demonstrations get a NaN reward, before it exists: one line, exit 2 (16.14)', async () => {
    const dataDir = join(work, 'data-faulty');
    // The first two fail as each split's envs start an episode while the run is prepared; the NaN
    // reward comes out of the warm start's demonstrations, also played before the run is recorded.
    const started = 'es_manager.train: the environments cannot start an episode: ';
    const cases: Array<[fixture: string, extra: string[], before: string, expected: RegExp]> = [
      ['faulty-reset-throws.ts', ['--set', 'warm_start.mode=none'], started, /: reset\(1\) threw RangeError: no board for seed 1 \(episode seed 1\) \(their options: custom_envs\.Faulty\.env_config\)$/],
      ['faulty-garbage-state.ts', ['--set', 'warm_start.mode=none'], started, /: renderState\(\) returned kind string "picture"; expected 'text' or 'grid' \(episode seed 1\) \(their options: custom_envs\.Faulty\.env_config\)$/],
      ['faulty-nan-reward.ts', [], '', /: step\("Go"\) returned reward number NaN; expected a finite number \(episode seed \d+\)$/],
    ];
    for (const [fixture, extra, before, expected] of cases) {
      const module = join(fixtures, fixture);
      const result = turnlab(['train', '--config', join(fixtures, 'faulty-train.yaml'), '--set', `custom_envs.Faulty.module=${module}`, ...extra], { dataDir });
      expect(result.code).toBe(2);
      const line = failureLine(result.stderr);
      expect(line.startsWith(`turnlab: ${before}custom environment ${module}`), line).toBe(true);
      expect(line).toMatch(expected);
      const runs = JSON.parse((await runTurnlabInProcess(['runs', '--json'], { dataDir })).stdout) as unknown[];
      expect(runs).toEqual([]);
    }
  }, 300_000);

  it('lists a module\'s own options with envs, as it lists a built-in env\'s (seventeenth QA pass)', async () => {
    const listed = await runTurnlabInProcess(['envs', example]);
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^guess_number: Guess the secret number.*\(one action per turn\)\n/);
    expect(listed.stdout).toMatch(/│ max_guesses +│ integer 1\.\. +│ 7 +│ guesses allowed per episode +│/);
    const missing = await runTurnlabInProcess(['envs', join(work, 'nope.ts')]);
    expect(missing.code).toBe(2);
    expect(failureLine(missing.stderr)).toBe(`turnlab: custom environment ${join(work, 'nope.ts')}: file not found`);
  }, 120_000);

  it('names the config key of a module path that is wrong, and the module it was likely meant to be (seventeenth QA pass)', async () => {
    const dataDir = join(work, 'data-typo');
    const folder = join(repo, 'examples/custom-env');
    const result = await runTurnlabInProcess(['train', '--config', exampleConfig, ...tiny, '--set', `custom_envs.GuessNumber.module=${join(folder, 'guess-numbr.ts')}`], { dataDir });
    expect(result.code).toBe(2);
    expect(failureLine(result.stderr)).toBe(
      `turnlab: custom_envs.GuessNumber.module: custom environment ${join(folder, 'guess-numbr.ts')}: file not found; did you mean ${join(folder, 'guess-number.ts')}?`,
    );
    expect(JSON.parse((await runTurnlabInProcess(['runs', '--json'], { dataDir })).stdout)).toEqual([]);
  }, 120_000);
});
