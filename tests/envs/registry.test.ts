import { describe, expect, it } from 'vitest';
import { describeEnvOptions, parseEnvOptions } from '../../trainer-core/envs/options';
import { getEnvSpec, isEnvModulePath, listEnvSpecs } from '../../trainer-core/envs/registry';

describe('env registry', () => {
  it("lists the built-ins under RAGEN's type names", () => {
    expect(listEnvSpecs().map((s) => s.type)).toEqual(['frozen_lake', 'sokoban', 'countdown', 'bandit', 'bandit_rev', 'metamathqa']);
    expect(getEnvSpec('mathqa').type).toBe('metamathqa');
    expect(listEnvSpecs().filter((s) => s.multiAction).map((s) => s.type)).toEqual(['frozen_lake', 'sokoban']);
  });

  it('suggests the closest type for an unknown one', () => {
    expect(() => getEnvSpec('frozenlak')).toThrow("unknown environment 'frozenlak'; did you mean 'frozen_lake'?");
    expect(() => getEnvSpec('sokobn')).toThrow("did you mean 'sokoban'?");
  });

  it('makes every built-in env from default options and plays a step', () => {
    for (const spec of listEnvSpecs()) {
      const env = spec.create(parseEnvOptions(spec, {}));
      expect(typeof env.reset(1)).toBe('string');
      expect(env.instructions().length).toBeGreaterThan(20);
      const names = env.actionNames();
      const result = env.step(names ? names[0] : env.solve!()![0]);
      expect(result.info.actionIsValid).toBe(true);
      expect(['grid', 'text']).toContain(env.renderState().kind);
    }
  });

  it('rejects unknown and mistyped options, naming the key and the closest valid one', () => {
    const lake = getEnvSpec('frozen_lake');
    expect(() => parseEnvOptions(lake, { sise: 5 })).toThrow(
      "frozen_lake: unknown option 'sise'; did you mean 'size'? (options: size, p, is_slippery, random_start, random_goal)",
    );
    expect(() => parseEnvOptions(lake, { p: 2 })).toThrow(/frozen_lake: option 'p': Too big/);
    expect(parseEnvOptions(getEnvSpec('sokoban'), { dim_room: [8, 8], num_boxes: 2 })).toMatchObject({ dim_room: [8, 8], num_boxes: 2 });
  });

  it('describes options with types and defaults for listings', () => {
    const options = describeEnvOptions(getEnvSpec('frozen_lake'));
    expect(options.map((o) => [o.key, o.type, o.default])).toEqual([
      ['size', 'integer 2..32', 4],
      ['p', 'number >0..1', 0.8],
      ['is_slippery', 'boolean', true],
      ['random_start', 'boolean', true],
      ['random_goal', 'boolean | corner', true],
    ]);
  });

  it('tells module paths from type names', () => {
    expect(isEnvModulePath('examples/custom-env/guess-number.ts')).toBe(true);
    expect(isEnvModulePath('my-env.mjs')).toBe(true);
    expect(isEnvModulePath('frozen_lake')).toBe(false);
  });
});
