// The layers of docs/architecture.md, checked on the real import graph: no import cycles, no
// import that points up a layer, each side reaching the others only through their public
// surfaces, and trainer-core/index.ts free of tensors. A new top-level file or folder must be
// given its layer here.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, sourceFiles, specifiersOf, type ImportEdge } from './import-graph';

const ROOT = resolve(import.meta.dirname, '../..');

/** Layers inside each area, lowest first: a unit may import only units of lower layers (and itself). */
const LAYERS: Record<string, Record<string, number>> = {
  'trainer-core': {
    rng: 0, 'token-ids': 0, 'backend-names': 0, 'dawn-flags': 0, 'make-folder': 0, 'closest-name': 0,
    algo: 1, envs: 1,
    config: 2,
    rollout: 3,
    model: 4,
    backend: 5,
    workers: 6,
    train: 7,
    index: 8, compute: 8, 'shared-names': 8,
  },
  main: {
    paths: 0, 'renderer-url': 0, 'static-compression': 0, 'shell-quote': 0,
    store: 1,
    'trainer-host': 2, bundle: 2,
    services: 3, cluster: 3,
    api: 4,
    http: 5,
    cli: 6,
    index: 7,
  },
  preload: { 'seed-list': 0, 'run-labels': 0, 'seed-groups': 2, 'sweep-plan': 1, sweeps: 3, 'min-max-downsample': 0, 'config-diff': 0, contract: 1, 'run-conditions': 2, 'checkpoint-kind': 2, index: 2 },
  renderer: {},
};

/** What each area may import from the others: whole areas, or single files of them. */
const MAY_REACH: Record<string, readonly string[]> = {
  'trainer-core': [],
  preload: ['trainer-core/shared-names.ts'],
  main: ['preload', 'trainer-core/index.ts', 'trainer-core/compute.ts'],
  renderer: ['preload'],
};

interface Place {
  area: string;
  unit: string;
}

function placeOf(file: string): Place {
  const parts = file.split('/');
  if (parts[0] === 'renderer') return { area: 'renderer', unit: parts.slice(0, 3).join('/') };
  return { area: parts[0], unit: parts[1].replace(/\.(ts|vue)$/, '') };
}

/** One line per import the layers refuse. */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const problems: string[] = [];
  for (const { from, to } of edges) {
    const a = placeOf(from);
    const b = placeOf(to);
    if (a.area !== b.area) {
      const allowed = MAY_REACH[a.area].some((target) => to === target || to.startsWith(`${target}/`));
      if (!allowed) problems.push(`${from} imports ${to}: ${a.area}/ may reach only ${MAY_REACH[a.area].join(', ') || 'itself'}`);
      continue;
    }
    if (a.unit === b.unit || a.area === 'renderer') continue;
    const layers = LAYERS[a.area];
    const [ra, rb] = [layers[a.unit], layers[b.unit]];
    if (ra === undefined || rb === undefined) {
      problems.push(`${ra === undefined ? from : to}: ${a.area}/${ra === undefined ? a.unit : b.unit} has no layer in tests/architecture/layers.test.ts; add it`);
    } else if (rb >= ra) {
      problems.push(`${from} imports ${to}: ${a.unit} (layer ${ra}) may import only lower layers, and ${b.unit} is layer ${rb}`);
    }
  }
  return [...new Set(problems)];
}

/** The files a module loads when it is imported: static, non-type imports, followed through. */
function loadedWith(edges: readonly ImportEdge[], start: string): Set<string> {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    for (const e of edges) {
      if (e.from === file && !e.typeOnly && !e.dynamic && !seen.has(e.to)) {
        seen.add(e.to);
        queue.push(e.to);
      }
    }
  }
  return seen;
}

const files = sourceFiles(ROOT, ['trainer-core', 'main', 'preload', 'renderer/src']);
const edges = importGraph(ROOT, files);

describe('the import graph', () => {
  it('is read from every source file', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(edges.length).toBeGreaterThan(600);
  });

  it('has no import cycle, type-only imports included', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  it('has no import that points up a layer or past a public surface', () => {
    expect(layerViolations(edges)).toEqual([]);
  });

  it("loads no TensorFlow.js with trainer-core's public index", () => {
    const tensorImports = [...loadedWith(edges, 'trainer-core/index.ts')].flatMap((file) =>
      specifiersOf(ROOT, file)
        .filter((s) => !s.typeOnly && !s.dynamic && /^(@tensorflow\/|webgpu$)/.test(s.specifier))
        .map((s) => `${file} imports ${s.specifier}`),
    );
    expect(tensorImports).toEqual([]);
  });

  it('gives the renderer only modules that need no Node and no package through trainer-core/shared-names.ts', () => {
    const outside = [...loadedWith(edges, 'trainer-core/shared-names.ts')].flatMap((file) =>
      specifiersOf(ROOT, file)
        .filter((s) => !s.typeOnly && !s.specifier.startsWith('.'))
        .map((s) => `${file} imports ${s.specifier}`),
    );
    expect(outside).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to, typeOnly: false, dynamic: false });

  it('find a cycle of two files and one of three', () => {
    expect(importCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'a.ts'), edge('c.ts', 'a.ts')])).toEqual([['a.ts', 'b.ts']]);
    expect(importCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts')])).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('refuse an upward import, a deep import past a public surface and an unplaced folder', () => {
    expect(layerViolations([edge('trainer-core/workers/pool.ts', 'trainer-core/train/trainer.ts')])).toEqual([
      'trainer-core/workers/pool.ts imports trainer-core/train/trainer.ts: workers (layer 6) may import only lower layers, and train is layer 7',
    ]);
    expect(layerViolations([edge('main/services/x.ts', 'trainer-core/train/trainer.ts')])[0]).toMatch(/main\/ may reach only preload, trainer-core\/index.ts/);
    expect(layerViolations([edge('renderer/src/views/V.vue', 'main/services/seed-list.ts')])).toHaveLength(1);
    expect(layerViolations([edge('trainer-core/newthing/a.ts', 'trainer-core/rng.ts')])[0]).toMatch(/trainer-core\/newthing has no layer/);
    expect(layerViolations([edge('trainer-core/train/a.ts', 'trainer-core/model/b.ts'), edge('main/cli/a.ts', 'main/store/b.ts')])).toEqual([]);
  });
});
