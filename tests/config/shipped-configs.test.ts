import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { EnvStateManager } from '../../trainer-core/rollout/es-manager';

const configsDir = join(import.meta.dirname, '../../configs');
const files = readdirSync(configsDir).filter((f) => f.endsWith('.yaml'));

describe('ready configs in configs/', () => {
  it('ships one for each built-in task', () => {
    expect(files).toEqual(
      expect.arrayContaining(['bandit.yaml', 'frozenlake.yaml', 'frozenlake-nonslip.yaml', 'sokoban.yaml', 'countdown.yaml', 'mathqa.yaml', 'frozenlake-rl.yaml', 'sokoban-rl.yaml']),
    );
  });

  it.each(files)('%s validates and builds its environments', (file) => {
    const cfg = loadRunConfig(join(configsDir, file));
    for (const split of ['train', 'val'] as const) {
      const es = new EnvStateManager(cfg, split);
      es.reset();
      expect(es.entries.length).toBe(cfg.es_manager[split].env_groups * cfg.es_manager[split].group_size);
    }
  });
});
