import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCustomEnvSpec } from '../../trainer-core/envs/custom-loader';
import { createEnv, parseEnvOptions } from '../../trainer-core/envs/options';
import { resolveEnvSpec } from '../../trainer-core/envs/registry';
import { formatShapeProblem, resultProblems } from '../../trainer-core/envs/env-shapes';

const root = resolve(__dirname, '../..');
const fixture = (name: string) => resolve(__dirname, 'fixtures', name);

describe('custom environments', () => {
  it('loads the shipped example and plays it to success with its solver', async () => {
    const spec = await loadCustomEnvSpec(resolve(root, 'examples/custom-env/guess-number.ts'));
    expect(spec.type).toBe('guess_number');
    expect(spec.multiAction).toBe(false);
    const env = createEnv(spec, { max_number: 50 });
    const first = env.reset(3);
    expect(first).toContain('between 1 and 50');
    expect(env.reset(3)).toBe(first);
    const secret = env.solve!()!.at(-1)!; // the halving plan ends on the secret
    const low = env.step(String(Number(secret) - 1));
    expect(low).toMatchObject({ reward: 0, done: false, info: { success: false, actionIsValid: true } });
    expect(low.observation).toContain('too low');
    expect(env.step(secret)).toMatchObject({ reward: 1, done: true, info: { success: true } });
    expect(() => parseEnvOptions(spec, { max_numbr: 5 })).toThrow(/unknown option 'max_numbr'; did you mean 'max_number'\?/);
  });

  it('resolves a module path given where an env type is expected', async () => {
    const spec = await resolveEnvSpec('examples/custom-env/guess-number.ts', root);
    expect(spec.type).toBe('guess_number');
  });

  it('accepts a class as the default export', async () => {
    const spec = await loadCustomEnvSpec(fixture('class-env.ts'));
    expect(spec).toMatchObject({ type: 'coin', description: 'say heads', multiAction: false });
    const env = createEnv(spec);
    env.reset(0);
    expect(env.step('heads')).toMatchObject({ reward: 1, done: true, info: { success: true } });
  });

  it('refuses a module whose env lacks a method, naming it', async () => {
    await expect(loadCustomEnvSpec(fixture('broken-no-step.ts'))).rejects.toThrow(
      /custom environment .*broken-no-step\.ts: the environment has no step\(\) method \(found undefined\)/,
    );
  });

  it('refuses a module whose method returns the wrong thing, saying what came back', async () => {
    await expect(loadCustomEnvSpec(fixture('broken-reset.ts'))).rejects.toThrow(/reset\(0\) returned number 42; expected a string/);
    await expect(loadCustomEnvSpec(fixture('broken-step-result.ts'))).rejects.toThrow(
      /step\("Go"\) returned info.success undefined; expected true or false \(episode seed 0\)/,
    );
  });

  it('refuses a module without a default export or a missing file', async () => {
    await expect(loadCustomEnvSpec(fixture('no-default.ts'))).rejects.toThrow(/has no default export/);
    await expect(loadCustomEnvSpec(fixture('nope.ts'))).rejects.toThrow(/file not found/);
  });
});

describe('custom environments during training (issue 16.14)', () => {
  it('guards every call of a loaded env: the error names the module, the call, the bad value and the episode seed', async () => {
    const spec = await loadCustomEnvSpec(fixture('faulty-nan-reward.ts'));
    const env = createEnv(spec);
    env.reset(0);
    expect(env.step('Go').reward).toBe(1);
    env.reset(5);
    expect(() => env.step('Go')).toThrow(
      `custom environment ${fixture('faulty-nan-reward.ts')}: step("Go") returned reward number NaN; expected a finite number (episode seed 5)`,
    );
    // Finite rewards too large to add up: 1e308 a turn summed to Infinity, and training failed with an internal error.
    const huge = { observation: 'x', reward: 1e308, done: true, info: { success: true, actionIsValid: true, actionIsEffective: true } };
    expect(resultProblems('step', huge).map((p) => formatShapeProblem('step("Go")', p))).toEqual([
      `step("Go") returned reward number 1e+308; expected a reward of at most 1e12 either way (an episode's sum of larger ones can overflow to Infinity: scale them down)`,
    ]);
    expect(resultProblems('step', { ...huge, reward: -1e12 })).toEqual([]);
    // An env's own info fields go to the store as JSON, which writes NaN and Infinity as null.
    const withInfo = (extra: Record<string, unknown>) => ({ ...huge, reward: 1, info: { ...huge.info, ...extra } });
    expect(resultProblems('step', withInfo({ ratio: 0.5, label: 'NaN', nested: { steps: [1, 2] } }))).toEqual([]);
    expect(resultProblems('step', withInfo({ nested: { steps: [1, Infinity] }, ratio: NaN })).map((p) => formatShapeProblem('step("Go")', p))).toEqual([
      `step("Go") returned info.nested.steps.1 number Infinity; expected a finite number (JSON has no NaN or Infinity, so the store would keep null: leave the field out, or write it as a string such as 'NaN')`,
    ]);
    const throwing = createEnv(await loadCustomEnvSpec(fixture('faulty-reset-throws.ts')));
    expect(() => throwing.reset(9)).toThrow(/faulty-reset-throws\.ts: reset\(9\) threw RangeError: no board for seed 9 \(episode seed 9\)$/);
  });
});
