// Run bundles: `turnlab export-run` writes a run as a folder (its own SQLite file in rollback
// journal mode, checkpoints, manifest); `turnlab import` merges bundles into another data folder
// with new ids, row for row, once, brings a grown bundle up to date, and refuses a damaged one
// naming the file with nothing written. The first export and import run as real `turnlab`
// processes; the trainings and the other commands through its entry point in this process.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunRows } from '../helpers/run-rows';
import { repoRoot as repo, runTurnlab, runTurnlabInProcess as turnlab, TINY_TRAIN, type CliResult } from '../helpers/turnlab-cli';

const root = mkdtempSync(join(tmpdir(), 'turnlab-bundles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const away = join(root, 'away');
const bundle = join(root, 'bundle');
const sqlite = (dir: string) => join(dir, 'turnlab.sqlite');

const tiny = [...TINY_TRAIN, '--set', 'trainer.test_freq=2', '--set', 'trainer.save_freq=2'];

function ok(result: CliResult): string {
  expect(result.stderr.split('\n').filter((l) => l.startsWith('turnlab:'))).toEqual([]);
  expect(result.code).toBe(0);
  return result.stdout;
}

interface Row {
  id: number;
  name: string;
  status: string;
  tags: string[];
  parentRunId: number | null;
  iterations: number;
}
const runs = async (dataDir: string) => JSON.parse(ok(await turnlab(['runs', '--json'], { dataDir }))) as Row[];
const count = (dataDir: string, table: string) => {
  const db = new Database(sqlite(dataDir), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  ok(await turnlab(['train', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--set', 'trainer.total_training_steps=4', '--name', 'origin', '--tag', 'seeds:grp'], { dataDir: away }));
  ok(await turnlab(['eval', 'origin', '--episodes', '4'], { dataDir: away }));
  ok(await turnlab(['resume', 'ckpt:1', '--fork', '--name', 'child', '--set', 'trainer.total_training_steps=4'], { dataDir: away }));
}, 300_000);
/** Several trainings a test, on a loaded 2-core machine. */
const SLOW = 180_000;

describe('turnlab export-run / import', () => {
  it('exports a run with its lineage as a bundle in rollback-journal mode, and imports it with new ids, row for row', async () => {
    // A run at home first, so the imported ids cannot equal the bundle's.
    ok(await turnlab(['train', '--config', join(repo, 'configs/bandit.yaml'), ...tiny, '--set', 'trainer.total_training_steps=2', '--name', 'local'], { dataDir: home }));
    const [origin, child] = (await runs(away)).sort((a, b) => a.id - b.id);
    expect(child.parentRunId).toBe(origin.id);
    expect(ok(runTurnlab(['export-run', 'child', '--bundle', bundle], { dataDir: away }))).toMatch(/wrote .*bundle: run 1 \(origin\), run 2 \(child\)/);
    const manifest = JSON.parse(readFileSync(join(bundle, 'turnlab-bundle.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ format: 'turnlab-bundle', version: 1, name: 'child', seed: 0 });
    const header = readFileSync(sqlite(bundle)).subarray(18, 20);
    expect([...header]).toEqual([1, 1]); // file format bytes 1/1: a rollback journal, not WAL (2/2)
    expect(existsSync(`${sqlite(bundle)}-wal`)).toBe(false);

    expect(ok(runTurnlab(['import', bundle], { dataDir: home }))).toMatch(/1 \(origin\).*│ 2 +│ added[\s\S]*2 \(child\).*│ 3 +│ added/);
    const imported = (await runs(home)).sort((a, b) => a.id - b.id);
    expect(imported.map((r) => [r.id, r.name, r.tags, r.parentRunId])).toEqual([
      [1, 'local', [], null],
      [2, 'origin', ['seeds:grp'], null],
      [3, 'child', [], 2],
    ]);
    for (const [here, there] of [[2, origin.id], [3, child.id]]) {
      const want = readRunRows(sqlite(away), there);
      const got = readRunRows(sqlite(home), here);
      expect(got.evaluations.length + got.turns.length).toBeGreaterThan(0);
      expect(got.logs.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
    }
    expect(readRunRows(sqlite(home), 2).evaluations).toHaveLength(1);
    expect(readdirSync(join(home, 'checkpoints/run-2')).sort()).toEqual(['iter-2', 'iter-4']);
    // The imported checkpoint resumes here.
    ok(await turnlab(['resume', '3', '--fork', '--name', 'grandchild', '--set', 'trainer.total_training_steps=6'], { dataDir: home }));
  }, SLOW);

  it('adds nothing when the same bundle is imported again, or into the folder it came from', async () => {
    const before = ['runs', 'metrics', 'episodes', 'turns', 'checkpoints', 'evaluations'].map((t) => count(home, t));
    expect(ok(await turnlab(['import', bundle], { dataDir: home }))).toMatch(/origin\).*unchanged[\s\S]*child\).*unchanged/);
    expect(['runs', 'metrics', 'episodes', 'turns', 'checkpoints', 'evaluations'].map((t) => count(home, t))).toEqual(before);
    // Nor into the data folder it was exported from, where its runs are not imports.
    const there = ['runs', 'metrics', 'episodes', 'turns', 'checkpoints', 'evaluations'].map((t) => count(away, t));
    expect(ok(await turnlab(['import', bundle], { dataDir: away }))).toMatch(/1 \(origin\).*│ 1 +│ already here: not imported[\s\S]*2 \(child\).*│ 2 +│ already here: not imported/);
    expect(['runs', 'metrics', 'episodes', 'turns', 'checkpoints', 'evaluations'].map((t) => count(away, t))).toEqual(there);
  }, SLOW);

  it('brings a bundle that grew since (its run resumed inside it) up to date in place', async () => {
    ok(await turnlab(['resume', 'child', '--set', 'trainer.total_training_steps=6'], { dataDir: bundle }));
    expect(ok(await turnlab(['import', bundle], { dataDir: home }))).toMatch(/origin\).*unchanged[\s\S]*child\).*│ 3 +│ updated/);
    const child = (await runs(home)).find((r) => r.id === 3)!;
    expect(child.iterations).toBe(6);
    expect(readRunRows(sqlite(home), 3)).toEqual(readRunRows(sqlite(bundle), 2));
    expect(readdirSync(join(home, 'checkpoints/run-3')).sort()).toEqual(readdirSync(join(bundle, 'checkpoints/run-2')).sort());
    expect(readdirSync(join(home, 'checkpoints/run-3'))).toContain('iter-6');
  }, SLOW);

  it('says a run changed in another folder and imported back is a changed copy of the run here, and keeps both', async () => {
    // The child resumed inside the bundle (above) comes back to the folder it was made in.
    const grown = join(root, 'grown');
    ok(await turnlab(['export-run', 'child', '--bundle', grown], { dataDir: bundle }));
    const before = (await runs(away)).length;
    const out = ok(await turnlab(['import', grown], { dataDir: away }));
    expect(out).toMatch(/\(origin\).*already here: not imported[\s\S]*\(child\).*│ \d+ +│ added: a changed copy of run 2 \(both kept\)/);
    expect((await runs(away)).length).toBe(before + 1);
  }, SLOW);

  it('refuses a bundle whose SQLite file is truncated, naming the file, and writes nothing of that import', async () => {
    const other = join(root, 'other');
    ok(await turnlab(['export-run', 'local', '--bundle', other], { dataDir: home }));
    const damaged = join(root, 'damaged');
    ok(await turnlab(['export-run', 'origin', '--bundle', damaged], { dataDir: away }));
    truncateSync(sqlite(damaged), Math.floor(readFileSync(sqlite(damaged)).length / 2));
    const fresh = join(root, 'fresh');
    const result = await turnlab(['import', other, damaged], { dataDir: fresh });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`turnlab: ${sqlite(damaged)} is damaged or truncated (SQLite says: database disk image is malformed); copy or export the bundle again`);
    expect(await runs(fresh)).toEqual([]);
    expect(existsSync(join(fresh, 'checkpoints')) ? readdirSync(join(fresh, 'checkpoints')) : []).toEqual([]);
  }, SLOW);

  it('refuses a bundle whose checkpoint file was altered, saying to copy or export it again, and imports nothing', async () => {
    const altered = join(root, 'altered');
    ok(await turnlab(['export-run', 'origin', '--bundle', altered], { dataDir: away }));
    const checkpoint = join(altered, 'checkpoints', readdirSync(join(altered, 'checkpoints'))[0]);
    const file = join(checkpoint, readdirSync(checkpoint)[0], 'policy.safetensors');
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    const fresh = join(root, 'fresh-altered');
    const result = await turnlab(['import', altered], { dataDir: fresh });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^turnlab: bundle ${altered}: .*policy\\.safetensors.*altered.*; copy or export the bundle again\n$`));
    expect(await runs(fresh)).toEqual([]);
  }, SLOW);

  it('refuses a bundle from a newer TurnLab and a folder that is not a bundle', async () => {
    const newer = join(root, 'newer');
    cpSync(bundle, newer, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(newer, 'turnlab-bundle.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(newer, 'turnlab-bundle.json'), JSON.stringify({ ...manifest, version: 9, turnlabVersion: '9.0.0' }));
    const refused = await turnlab(['import', newer], { dataDir: home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/turnlab-bundle.json is bundle format 9, written by TurnLab 9.0.0; this TurnLab reads format 1: update TurnLab/);
    const notBundle = await turnlab(['import', root], { dataDir: home });
    expect(notBundle.code).toBe(2);
    expect(notBundle.stderr).toMatch(/is not a TurnLab run bundle \(turnlab-bundle.json not found\)/);
    const theFile = await turnlab(['import', join(newer, 'turnlab-bundle.json')], { dataDir: home });
    expect(theFile.stderr).toBe(`turnlab: ${join(newer, 'turnlab-bundle.json')} is a file; give the bundle's folder (${newer}), the one that holds turnlab-bundle.json\n`);
    // A file as --bundle was read as a folder and ended in an internal error; it is refused, and kept.
    const file = join(root, 'a-file.txt');
    writeFileSync(file, 'keep me');
    const onFile = await turnlab(['export-run', 'origin', '--bundle', file], { dataDir: away });
    expect(onFile.stderr).toBe(`turnlab: ${file} is a file, not a folder; choose a new folder for the bundle\n`);
    expect(onFile.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    // A cluster sweep's folder holds sweep.sbatch and slurm-*.out beside its bundles: sweeps/*/*
    // picked them up and the refusal named the sweep's folder as the bundle's; it says to give its folders.
    const sweepDir = join(root, 'sweep-20261203-093340');
    cpSync(bundle, join(sweepDir, 'grp-s0'), { recursive: true });
    writeFileSync(join(sweepDir, 'sweep.sbatch'), '#!/bin/bash\n');
    writeFileSync(join(sweepDir, 'slurm-1_0.out'), 'iteration 1/4\n');
    const globbed = await turnlab(['import', join(sweepDir, 'grp-s0'), join(sweepDir, 'slurm-1_0.out')], { dataDir: home });
    expect(globbed.code).toBe(2);
    expect(globbed.stderr).toBe(
      `turnlab: ${join(sweepDir, 'slurm-1_0.out')} is a file, not a run bundle (a folder holding turnlab-bundle.json); ${sweepDir} is a cluster sweep's folder: give its run bundles, the folders in it, e.g. ${sweepDir}/*/ (the slash leaves out its sweep.sbatch and slurm-*.out)\n`,
    );
    const whole = await turnlab(['import', sweepDir], { dataDir: home });
    expect(whole.stderr).toMatch(/is not a TurnLab run bundle \(turnlab-bundle.json not found\); .* is a cluster sweep's folder: give its run bundles/);
    const missing = await turnlab(['import', join(root, 'no-such-bundle')], { dataDir: home });
    expect(missing.stderr).toMatch(/^turnlab: no folder .*no-such-bundle \(a run bundle is the folder turnlab export-run writes/);
  }, SLOW);

  it('says when the run it exports is still training: the bundle is a snapshot', async () => {
    // A trainer holds the run: this process, as a trainer started here would.
    const db = new Database(sqlite(away));
    db.prepare("UPDATE runs SET status = 'running', trainer_pid = ?, trainer_host = ?, trainer_heartbeat_at = ? WHERE name = 'origin'").run(process.pid, hostname(), Date.now());
    db.close();
    const snapshot = await turnlab(['export-run', 'origin', '--bundle', join(root, 'snapshot')], { dataDir: away });
    expect(snapshot.code).toBe(0);
    expect(snapshot.stderr).toBe('run 1 (origin) is still training: the bundle holds it up to iteration 4 and imports as interrupted; export it again once it has ended for the whole run\n');
  }, SLOW);
});
