// bin/turnlab.js runs the CLI's bundle only while it is current (bin/fresh-bundle.js), and either
// way the same command: the sources through tsx and the bundle answer alike.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin script, without types.
import { freshBundle } from '../../bin/fresh-bundle.js';
import { makeTempDir } from '../helpers/fixtures';
import { repoRoot } from '../helpers/turnlab-cli';
import { spawnSync } from 'node:child_process';

const tmp = makeTempDir('turnlab-cli-bundle-');
afterAll(() => tmp.cleanup());

describe('the CLI bundle', () => {
  it('is current only for its checkout, while none of its sources has been saved since or removed', () => {
    const dir = join(tmp.dir, 'out', 'cli');
    mkdirSync(dir, { recursive: true });
    const source = join(tmp.dir, 'a.ts');
    writeFileSync(source, 'export {};\n');
    writeFileSync(join(dir, 'cli.mjs'), 'export {};\n');
    const builtAt = Date.now();
    utimesSync(source, new Date(builtAt - 10_000), new Date(builtAt - 10_000));
    const write = (manifest: object) => writeFileSync(join(dir, 'sources.json'), JSON.stringify(manifest));
    const at = pathToFileURL(`${dir}/`);
    write({ root: tmp.dir, builtAt, inputs: [source] });
    expect(freshBundle(at, tmp.dir)).toBe(pathToFileURL(join(dir, 'cli.mjs')).href);
    // Another checkout's bundle (a copied folder) is not this one's.
    expect(freshBundle(at, join(tmp.dir, 'elsewhere'))).toBeNull();
    // A source saved since the build started.
    utimesSync(source, new Date(builtAt + 1000), new Date(builtAt + 1000));
    expect(freshBundle(at, tmp.dir)).toBeNull();
    // A source gone; a manifest that names none, or is not JSON; no entry.
    write({ root: tmp.dir, builtAt, inputs: [join(tmp.dir, 'gone.ts')] });
    expect(freshBundle(at, tmp.dir)).toBeNull();
    write({ root: tmp.dir, builtAt, inputs: [] });
    expect(freshBundle(at, tmp.dir)).toBeNull();
    writeFileSync(join(dir, 'sources.json'), '{');
    expect(freshBundle(at, tmp.dir)).toBeNull();
    rmSync(join(dir, 'cli.mjs'));
    write({ root: tmp.dir, builtAt: Date.now() + 60_000, inputs: [source] });
    expect(freshBundle(at, tmp.dir)).toBeNull();
  });

  it('is current in a checkout that `npm run build` built (CI), and answers as the sources do', () => {
    const current = freshBundle(pathToFileURL(join(repoRoot, 'out', 'cli/')), repoRoot);
    // `npm test` builds before the tests run; a developer's `npx vitest` may run beside an older bundle.
    if (process.env.CI === 'true') {
      expect(current, 'out/cli/ is missing or older than the sources: npm run build').not.toBeNull();
      expect(freshBundle(pathToFileURL(join(repoRoot, 'out', 'cli/')), repoRoot, 'worker.mjs'), "the worker threads' module").not.toBeNull();
    }
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), 'envs'], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
    const bundled = run({});
    const sources = run({ TURNLAB_FROM_SOURCES: '1' });
    expect(sources.status).toBe(0);
    expect(bundled.status).toBe(0);
    expect(bundled.stdout).toBe(sources.stdout);
    expect(bundled.stdout).toContain('frozen_lake');
  });
});
