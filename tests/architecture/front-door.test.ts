// What keeps the house readable for a newcomer: the README a front door of at most 250 lines,
// the architecture guide with its recipes, and no workbench view over 300 lines (a view wires
// composables and child components; it does not hold them).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const lineCount = (path: string) => readFileSync(path, 'utf8').replace(/\n$/, '').split('\n').length;

/** Views another change is splitting right now; delete an entry when that change lands. */
const BEING_SPLIT = new Set(['RunsView.vue', 'CompareView.vue']);

describe('the front door', () => {
  it('keeps the README at most 250 lines', () => {
    expect(lineCount(join(ROOT, 'README.md'))).toBeLessThanOrEqual(250);
  });

  it('has an architecture guide with the recipes for an estimator, an environment, an architecture and a view', () => {
    const guide = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    for (const recipe of ['an advantage estimator', 'an environment', 'a Hugging Face architecture', 'a workbench view']) {
      expect(guide).toContain(`## Recipe: ${recipe}`);
    }
  });

  it('keeps every workbench view at most 300 lines', () => {
    const folder = join(ROOT, 'renderer/src/views');
    const views = readdirSync(folder).filter((name) => name.endsWith('.vue'));
    expect(views.length).toBeGreaterThan(3);
    const over = views
      .filter((name) => !BEING_SPLIT.has(name))
      .map((name) => ({ name, lines: lineCount(join(folder, name)) }))
      .filter(({ lines }) => lines > 300);
    expect(over).toEqual([]);
  });
});
