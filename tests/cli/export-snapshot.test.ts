// An export is one snapshot: a run deleted by another process while its turns stream out still
// exports whole, as it stood when the export began (one read transaction, not one per page).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { exportRows } from '../../main/services/export';
import { makeFixtureDataDir, type FixtureDataDir } from '../helpers/fixtures';
import { repoRoot, runTurnlab } from '../helpers/turnlab-cli';

let fixture: FixtureDataDir;
beforeAll(() => {
  // Run 1 gets well over one page (1,000) of turns and over a pipe's buffer of JSON Lines.
  fixture = makeFixtureDataDir({ iterations: 40, groups: 4, groupSize: 4, maxTurns: 8 });
});
afterAll(() => fixture.cleanup());

describe('an export beside a deletion in another process', () => {
  it('streams every turn the run had when the export began', async () => {
    const args = ['--data-dir', fixture.dir, 'export', '1', '--what', 'turns', '--format', 'jsonl'];
    const whole = spawnSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), ...args], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(whole.status, whole.stderr).toBe(0);
    const turns = whole.stdout.trim().split('\n').length;
    expect(turns).toBeGreaterThan(2000);

    const child = spawn(process.execPath, [join(repoRoot, 'bin/turnlab.js'), ...args], { cwd: repoRoot });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The first bytes mean the export has begun; then nobody reads, so it stalls on a full pipe.
    const first = await new Promise<Buffer>((resolve) => child.stdout.once('data', resolve));
    child.stdout.pause();

    const deleted = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'tests/helpers/delete-run-child.ts'), fixture.dir, '1'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(deleted.stdout + deleted.stderr).toBe('deleted run 1\n');
    expect(JSON.parse(runTurnlab(['runs', '--json'], { dataDir: fixture.dir }).stdout).map((r: { id: number }) => r.id)).not.toContain(1);

    const chunks: Buffer[] = [first];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    expect(await exited, stderr).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(whole.stdout);
  });

  it('refuses, by its id, a run already gone when the snapshot is taken', async () => {
    const store = openStore(fixture.dir);
    try {
      let written = '';
      const out = new Writable({ write: (chunk, _encoding, done) => ((written += String(chunk)), done()) });
      await expect(exportRows(store, { what: 'turns', format: 'csv', runIds: [2, 99] }, out)).rejects.toThrow(
        'run 99 was deleted before its export began; nothing was exported',
      );
      expect(written).toBe('');
    } finally {
      store.close();
    }
  });
});
