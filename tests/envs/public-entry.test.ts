// `turnlab/env`, the entry custom environment modules import (issue 17.9).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineEnv, defineOptions, deriveSeed, Rng, z } from 'turnlab/env';
import { loadCustomEnvSpec } from '../../trainer-core/envs/custom-loader';
import { PUBLIC_ENTRY_URL } from '../../trainer-core/envs/module-import';
import { describeEnvOptions, parseEnvOptions } from '../../trainer-core/envs/options';

const root = resolve(import.meta.dirname, '../..');

describe('turnlab/env', () => {
  it('is the package export the loader maps modules outside the repository to', () => {
    const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    expect(pathToFileURL(resolve(root, pkg.exports['./env'])).href).toBe(PUBLIC_ENTRY_URL);
  });

  it('gives the helpers a module needs: defineEnv, option schemas with defaults, the seeded generator', () => {
    const options = defineOptions({ size: z.number().int().min(1).default(3).describe('board size') });
    const spec = defineEnv({ type: 'demo', optionsSchema: options, create: () => ({}) as never });
    expect(spec.type).toBe('demo');
    expect(options.parse({})).toEqual({ size: 3 });
    expect(new Rng(deriveSeed(7, 'x')).int(1000)).toBe(new Rng(deriveSeed(7, 'x')).int(1000));
  });

  it('makes options TurnLab lists and checks like a built-in env', async () => {
    const spec = await loadCustomEnvSpec(resolve(root, 'examples/custom-env/guess-number.ts'));
    expect(describeEnvOptions(spec).map((o) => [o.key, o.default])).toEqual([
      ['max_number', 100],
      ['max_guesses', 7],
    ]);
    expect(() => parseEnvOptions(spec, { max_guess: 2 })).toThrow(/unknown option 'max_guess'; did you mean 'max_guesses'\?/);
  });
});
