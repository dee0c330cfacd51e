// A bench's scratch folder goes with Ctrl-C and SIGTERM, not only with the bench's own `finally`,
// which a signal skips. Signals are tried in a child process: this worker's handlers stay as they are.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempFolder } from '../../bench/lib/temp-folder';

const HELPER = fileURLToPath(new URL('../../bench/lib/temp-folder.ts', import.meta.url));

/** A child that makes a folder, says its path and waits; the signal, then its exit code, stderr and whether the folder is left. */
function interrupt(signal: 'SIGINT' | 'SIGTERM'): Promise<{ code: number | null; stderr: string; left: boolean }> {
  const script = `const { tempFolder } = await import(${JSON.stringify(HELPER)}); console.log(tempFolder('turnlab-test-temp-').dir); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((done) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) child.kill(signal);
    });
    child.on('close', (code) => done({ code, stderr, left: existsSync(stdout.trim()) }));
  });
}

describe('bench temp folders', () => {
  it('removes the folder on remove(), and a second remove() is harmless; then a signal ends the process as before', () => {
    const before = process.listenerCount('SIGINT');
    const folder = tempFolder('turnlab-test-temp-');
    expect(existsSync(folder.dir)).toBe(true);
    folder.remove();
    folder.remove();
    expect(existsSync(folder.dir)).toBe(false);
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('removes the folder on %s and exits %i with one line', async (signal, code) => {
    const result = await interrupt(signal);
    expect(result).toMatchObject({ code, left: false });
    expect(result.stderr).toMatch(/^interrupted: removed \S+turnlab-test-temp-\w+\n$/);
  });
});
