// `turnlab serve` trains only from YAML files: a token holder cannot point startRun at any file;
// a run's name is checked as a rename's is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { startHttpServer, type RunningHttpServer } from '../../main/http';
import { openStore, type Store } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let tmp: TempDir;
let store: Store;
let server: RunningHttpServer;
const launched: string[][] = [];

beforeAll(async () => {
  tmp = makeTempDir('turnlab-config-path-');
  store = openStore(tmp.dir, { create: true });
  // A launcher that records what it was asked to start and starts nothing.
  const manager = new RunManager(store, (args) => {
    launched.push(args);
    throw new Error('not launched in this test');
  });
  server = await startHttpServer({ api: createApi(store, { version: 'test', runManager: manager }), rendererDir: tmp.dir });
});

afterAll(async () => {
  await server?.close();
  store?.close();
  tmp?.cleanup();
});

async function startRun(configPath: string, name?: string): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const reply = await fetch(`http://127.0.0.1:${server.port}/api/startRun`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify([{ configPath, name }]),
  });
  return { status: reply.status, body: (await reply.json()) as { error?: { code: string; message: string } } };
}

describe('startRun over HTTP', () => {
  it.each(['/etc/passwd', '/tmp/evil.js', '/tmp/config.yaml.mjs', '/tmp/folder/'])('refuses %s, which is not a YAML file', async (path) => {
    const reply = await startRun(path);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: 'startRun: argument 0.configPath: a config must be a YAML file ending in .yaml or .yml',
    });
    expect(launched).toEqual([]);
  });

  // The trainer is started as `turnlab train --name NAME`: a name read as an option broke its arguments.
  it('refuses a run name a rename would refuse, before a trainer starts', async () => {
    const reply = await startRun('/tmp/config.yaml', '-x');
    expect(reply.status).toBe(400);
    expect(reply.body.error?.message).toBe("startRun: argument 0.name: a run name cannot start with '-': commands would read it as an option; drop the dash (x)");
    expect(launched).toEqual([]);
  });
});
