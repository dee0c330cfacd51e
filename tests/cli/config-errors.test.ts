// Config mistakes through the real CLI: each is exit code 2 and one line on stderr naming the
// file and line (or the --set) and what to do, and no run is recorded.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'turnlab-cli-config-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function train(config: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, 'train', '--config', config, ...args], {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function configFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function expectOneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('turnlab train refuses a config it cannot use', () => {
  it('an empty or comment-only file: exit 2, one line naming the file', () => {
    for (const [name, text] of [['empty.yaml', ''], ['comments.yaml', '# trainer:\n#   seed: 1\n\n']]) {
      const path = configFile(name, text);
      const result = train(path);
      expect(result.code).toBe(2);
      expect(expectOneLine(result.stderr)).toMatch(new RegExp(`${path} is empty: it holds no settings.*configs/base\\.yaml`));
    }
  });

  it('an unclosed quote: exit 2, one line naming the line where the quote opens', () => {
    const path = configFile('quote.yaml', 'trainer:\n  experiment_name: "my run\n  total_training_steps: 3\nagent_proxy:\n  max_turn: 2\n');
    const result = train(path);
    expect(result.code).toBe(2);
    expect(expectOneLine(result.stderr)).toContain(`${path} line 2: not valid YAML: the " quote at column 20 is never closed`);
  });

  it('--set trainer=5: exit 2, one line naming the key and what it expects', () => {
    const result = train(join(repo, 'configs/bandit.yaml'), '--set', 'trainer=5');
    expect(result.code).toBe(2);
    expect(expectOneLine(result.stderr)).toContain('--set trainer=5: `trainer` is a section and expects a map of its keys, not 5');
  });

  it('records no run for any of them', () => {
    const file = join(dataDir, 'turnlab.sqlite');
    if (!existsSync(file)) return;
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 0 });
    db.close();
  });
});
