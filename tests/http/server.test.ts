import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../main/api';
import { startHttpServer, TOKEN_COOKIE, type RunningHttpServer } from '../../main/http';
import { openStore, type Store } from '../../main/store/db';
import { dbPath } from '../../main/paths';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir, type TempDir } from '../helpers/fixtures';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { result?: unknown; error?: { code: string; message: string } };
}

let fixture: FixtureDataDir;
let rendererDir: TempDir;
let store: Store;
let server: RunningHttpServer;

function send(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolveReply, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path,
        headers: { Host: `127.0.0.1:${server.port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json = {};
          try {
            json = JSON.parse(body);
          } catch {
            // static files are not JSON
          }
          resolveReply({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function callApi(method: string, args: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send('POST', `/api/${method}`, {
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', ...headers },
    body: typeof args === 'string' ? args : JSON.stringify(args),
  });
}

/** Row counts of every table, read through a separate read-only connection. */
function rowCounts(): Record<string, number> {
  const db = new Database(dbPath(fixture.dir), { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as Array<{ name: string }>;
    return Object.fromEntries(
      tables.map(({ name }) => [name, (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  fixture = makeFixtureDataDir({ iterations: 4 });
  rendererDir = makeTempDir('turnlab-renderer-');
  writeFileSync(join(rendererDir.dir, 'index.html'), '<!doctype html><title>TurnLab test page</title>');
  mkdirSync(join(rendererDir.dir, 'assets'));
  writeFileSync(join(rendererDir.dir, 'assets', 'app.js'), 'console.log("hi");');
  store = openStore(fixture.dir);
  server = await startHttpServer({ api: createApi(store, { version: '9.9.9' }), rendererDir: rendererDir.dir });
});

afterAll(async () => {
  await server?.close();
  store?.close();
  fixture?.cleanup();
  rendererDir?.cleanup();
});

describe('turnlab HTTP server: refusals', () => {
  it('listens on loopback and prints a URL carrying the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses an API call without the token with 401', async () => {
    const reply = await send('POST', '/api/listRuns', { headers: { 'Content-Type': 'application/json' }, body: '[]' });
    expect(reply.status).toBe(401);
    expect(reply.json.error?.code).toBe('UNAUTHORIZED');
    expect(reply.json.result).toBeUndefined();
  });

  it('refuses a wrong token with 401', async () => {
    const reply = await callApi('listRuns', [], { Authorization: `Bearer ${server.token.slice(0, -1)}x` });
    expect(reply.status).toBe(401);
  });

  it('refuses a foreign Host header with 403, even with the right token', async () => {
    for (const host of ['evil.example:80', `attacker.test:${server.port}`, '127.0.0.1:1']) {
      const reply = await callApi('listRuns', [], { Host: host });
      expect(reply.status, host).toBe(403);
      expect(reply.json.error?.code).toBe('FORBIDDEN_HOST');
    }
    const page = await send('GET', '/', { headers: { Host: 'evil.example' } });
    expect(page.status).toBe(403);
  });

  it('refuses a request from another origin with 403', async () => {
    const reply = await callApi('listRuns', [], { Origin: 'http://localhost:3000' });
    expect(reply.status).toBe(403);
    expect(reply.json.error?.code).toBe('FORBIDDEN_ORIGIN');
  });

  it('refuses a body that is not declared JSON with 415', async () => {
    const reply = await callApi('listRuns', [], { 'Content-Type': 'text/plain' });
    expect(reply.status).toBe(415);
  });

  it('refuses an unknown method with 404 and names the known ones', async () => {
    const before = rowCounts();
    const reply = await callApi('deleteEverything', [1]);
    expect(reply.status).toBe(404);
    expect(reply.json.error?.code).toBe('UNKNOWN_METHOD');
    expect(reply.json.error?.message).toContain('listRuns');
    expect(rowCounts()).toEqual(before);
  });

  it('refuses API calls by GET', async () => {
    const reply = await send('GET', '/api/listRuns', { headers: { Authorization: `Bearer ${server.token}` } });
    expect(reply.status).toBe(405);
  });

  it('refuses malformed arguments with 400, says what is wrong, and writes nothing', async () => {
    const before = rowCounts();
    expect(Object.values(before).some((n) => n > 0)).toBe(true);
    const cases: Array<[string, unknown]> = [
      ['getRun', ['1']],
      ['getRun', [1.5]],
      ['getRun', [-3]],
      ['getRun', []],
      ['getRun', [1, 2]],
      ['getRun', { runId: 1 }],
      ['metricSeries', [1, 'train/kl']],
      ['listEpisodes', [1, 0, { split: 'test' }]],
      ['listEpisodes', [1, 0, { split: 'train', drop: true }]],
      ['episodeIterations', [1, null]],
      ['episodeTurns', ['1; DROP TABLE runs']],
    ];
    for (const [method, args] of cases) {
      const reply = await callApi(method, args);
      expect(reply.status, `${method} ${JSON.stringify(args)}`).toBe(400);
      expect(reply.json.error?.code).toBe('INVALID_ARGUMENTS');
      expect(reply.json.error?.message).toContain(method);
    }
    const broken = await callApi('listRuns', '[1,');
    expect(broken.status).toBe(400);
    expect(broken.json.error?.code).toBe('INVALID_JSON');
    expect(rowCounts()).toEqual(before);
  });

  it('names the bad argument in the message', async () => {
    const reply = await callApi('getRun', ['abc']);
    expect(reply.json.error?.message).toMatch(/getRun: argument 0: .*number/);
  });

  it('answers an unknown run or episode with 404', async () => {
    expect((await callApi('getRun', [999])).status).toBe(404);
    expect((await callApi('metricNames', [999])).json.error?.code).toBe('NOT_FOUND');
    expect((await callApi('episodeTurns', [99999])).status).toBe(404);
  });
});

describe('turnlab HTTP server: answers', () => {
  it('lists the runs with summaries and fork parents', async () => {
    const reply = await callApi('listRuns', []);
    expect(reply.status).toBe(200);
    const runs = reply.json.result as Array<{ id: number; name: string; parentRunId: number | null; iterations: number }>;
    expect(runs.map((r) => r.name)).toEqual(fixture.runs.map((r) => r.run.name));
    const fork = runs.find((r) => r.name === 'frozenlake-grpo-fork');
    expect(fork?.parentRunId).toBe(runs[0].id);
    expect(runs[0].iterations).toBe(4);
  });

  it('returns one run with its config and full error text', async () => {
    const failed = fixture.runs.find((r) => r.run.status === 'failed')!.run;
    const reply = await callApi('getRun', [failed.id]);
    const run = reply.json.result as { name: string; error: string; config: unknown };
    expect(run.name).toBe(failed.name);
    expect(run.error).toBe(failed.error);
    expect(run.config).toEqual(failed.config);
  });

  it('returns metric names and series as stored, NaN as null', async () => {
    const runId = fixture.runs[1].run.id;
    const names = (await callApi('metricNames', [runId])).json.result as string[];
    expect(names).toEqual(store.metrics.names(runId));
    expect(names).toContain('train/kl');
    const series = (await callApi('metricSeries', [runId, ['train/kl', 'no/such']])).json.result as Record<
      string,
      Array<{ iteration: number; value: number | null; wallTime: number }>
    >;
    expect(series['train/kl']).toEqual(store.metrics.series(runId, 'train/kl'));
    expect(series['train/kl'].some((p) => p.value === null)).toBe(true);
    expect(series['no/such']).toEqual([]);
    const latest = (await callApi('latestMetrics', [runId])).json.result;
    expect(latest).toEqual(store.metrics.latest(runId));
  });

  it('returns checkpoints, episodes with filters, iterations and turns', async () => {
    const seeded = fixture.runs[0];
    const runId = seeded.run.id;
    const checkpoints = (await callApi('listCheckpoints', [runId])).json.result;
    expect(checkpoints).toEqual(seeded.checkpoints);

    const iterations = (await callApi('episodeIterations', [runId])).json.result as number[];
    expect(iterations).toEqual(store.episodes.iterations(runId));
    const valIterations = (await callApi('episodeIterations', [runId, 'val'])).json.result;
    expect(valIterations).toEqual(store.episodes.iterations(runId, 'val'));

    const all = (await callApi('listEpisodes', [runId, iterations[0]])).json.result as Array<{ id: number; split: string }>;
    expect(all.length).toBeGreaterThan(0);
    const train = (await callApi('listEpisodes', [runId, iterations[0], { split: 'train' }])).json.result as Array<{
      split: string;
    }>;
    expect(train.length).toBeGreaterThan(0);
    expect(train.every((e) => e.split === 'train')).toBe(true);

    const turns = (await callApi('episodeTurns', [all[0].id])).json.result as Array<{ episodeId: number; turnIndex: number }>;
    expect(turns).toEqual(store.turns.listByEpisode(all[0].id));
    expect(turns.length).toBeGreaterThan(0);
  });

  it('reports the app info', async () => {
    const reply = await callApi('appInfo', []);
    expect(reply.json.result).toEqual({ version: '9.9.9', dataDir: fixture.dir });
  });
});

describe('turnlab HTTP server: the page', () => {
  it('serves the renderer, and sets the token cookie only for the right token', async () => {
    const plain = await send('GET', '/');
    expect(plain.status).toBe(200);
    expect(plain.body).toContain('TurnLab test page');
    expect(plain.headers['set-cookie']).toBeUndefined();

    const wrong = await send('GET', '/?token=nope');
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const withToken = await send('GET', `/?token=${server.token}`);
    const cookie = String(withToken.headers['set-cookie']);
    expect(cookie).toContain(`${TOKEN_COOKIE}=`);
    expect(cookie).toContain('HttpOnly');
    const viaCookie = await send('POST', '/api/listRuns', {
      headers: { Cookie: cookie.split(';')[0], 'Content-Type': 'application/json' },
      body: '[]',
    });
    expect(viaCookie.status).toBe(200);
  });

  it('serves assets with their content type and refuses paths outside the renderer', async () => {
    const asset = await send('GET', '/assets/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
    expect((await send('GET', '/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    expect((await send('GET', '/missing.js')).status).toBe(404);
    // A path that opens with // is a path here, not another host's (it was a 500 'Invalid URL').
    const statuses = await Promise.all(['//', '//assets/app.js', '//x/api/listRuns'].map(async (path) => [path, (await send('GET', path)).status]));
    expect(statuses).toEqual([['//', 404], ['//assets/app.js', 200], ['//x/api/listRuns', 404]]);
  });

  it('explains a missing renderer build with 503 and still answers the API', async () => {
    const empty = makeTempDir('turnlab-no-renderer-');
    const bare = await startHttpServer({ api: createApi(store, { version: '0' }), rendererDir: empty.dir });
    try {
      const reply = await new Promise<{ status: number; body: string }>((resolveReply, reject) => {
        request({ host: '127.0.0.1', port: bare.port, path: '/' }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolveReply({ status: res.statusCode ?? 0, body }));
        })
          .on('error', reject)
          .end();
      });
      expect(reply.status).toBe(503);
      expect(reply.body).toContain('npm run build');
    } finally {
      await bare.close();
      empty.cleanup();
    }
  });
});
