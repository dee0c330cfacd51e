// A run keeps its unresolved config (config.source.yaml) for resume and fork: its custom module
// paths must be absolute like the resolved config's, or a resume from another folder loses them.
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { sourceWithAbsoluteModulePaths } from '../../trainer-core/rollout/env-specs';

describe('sourceWithAbsoluteModulePaths', () => {
  it('makes relative module paths absolute against the config folder and keeps the rest', () => {
    const source = [
      'custom_envs:',
      '  Guess:',
      '    env_type: custom',
      '    module: ./guess-number.ts',
      '  Direct:',
      '    env_type: ./envs/other.js',
      '  Abs:',
      '    env_type: custom',
      '    module: /opt/envs/abs.ts',
      'trainer:',
      '  seed: ${other.seed}',
    ].join('\n');
    const out = parse(sourceWithAbsoluteModulePaths(source, '/home/me/project')) as Record<string, Record<string, Record<string, unknown>>>;
    expect(out.custom_envs.Guess.module).toBe('/home/me/project/guess-number.ts');
    expect(out.custom_envs.Direct.module).toBe('/home/me/project/envs/other.js');
    expect(out.custom_envs.Abs.module).toBe('/opt/envs/abs.ts');
    expect(out.trainer.seed).toBe('${other.seed}');
  });

  it('leaves a config without custom environments as it was', () => {
    const source = 'trainer:\n  seed: 3\n';
    expect(sourceWithAbsoluteModulePaths(source, '/x')).toBe(source);
  });
});
