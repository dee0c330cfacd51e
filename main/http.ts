// The workbench over HTTP for `turnlab serve`: the built renderer as static files and
// `POST /api/<method>` with a JSON array of arguments. It binds to loopback only, and since any
// local web page could still reach a loopback port, every API call needs the random token of
// this server, a Host header naming this server (against DNS rebinding), and, from a browser,
// our own Origin (against other local sites that share the cookie's site).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import type { ApiErrorCode } from '../preload/contract';
import { z } from 'zod';
import { ApiError, type Api } from './api';
import type { Store } from './store/db';
import { EXPORT_FORMATS, EXPORT_KINDS, exportRows } from './services/export';
import { checkpointFolder, requireCheckpoint, RunAdminError } from './services/run-admin';
import type { RunEventWatcher } from './services/run-events';
import { tarFolder } from './services/tar-folder';
import { chooseEncoding, CompressedFiles } from './static-compression';
import { checkpointExportName, exportFileName, workbenchExport } from './services/workbench-files';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { attachmentHeader } from '../preload/file-names';

export const TOKEN_COOKIE = 'turnlab_token';
const MAX_BODY_BYTES = 1 << 20;
const LOOPBACK = '127.0.0.1';

const STATUS_OF: Record<ApiErrorCode, number> = {
  UNKNOWN_METHOD: 404,
  INVALID_ARGUMENTS: 400,
  NOT_FOUND: 404,
  REFUSED: 409,
  INTERNAL: 500,
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

export interface HttpServerOptions {
  api: Api;
  /** The built renderer (`out/renderer`). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; a fresh random one otherwise. */
  token?: string;
  /** For the GET routes that stream (export and model downloads); absent, they answer 404. */
  store?: Store;
  /** For `GET /api/events`; absent, it answers 404 and the renderer polls. */
  events?: RunEventWatcher;
}

/** The streaming GET routes: downloads a browser saves, and the event stream. */
const STREAM_ROUTES = new Set(['/api/export', '/api/checkpoint-archive', '/api/events']);
const SSE_HEARTBEAT_MS = 15_000;

const exportQuery = z.strictObject({
  what: z.enum(EXPORT_KINDS),
  format: z.enum(EXPORT_FORMATS),
  /** Comma-separated run ids; empty or absent: every run. */
  runs: z
    .string()
    .regex(/^(\d+(,\d+)*)?$/, 'expected run ids separated by commas, e.g. runs=1,2')
    .optional(),
  /** An evaluation of the one run: its episodes or turns. */
  evaluation: z.string().regex(/^[1-9]\d*$/, 'expected an evaluation id, e.g. evaluation=3').optional(),
  token: z.string().optional(),
});
const archiveQuery = z.strictObject({ id: z.string().regex(/^[1-9]\d*$/, 'expected a checkpoint id'), token: z.string().optional() });

function queryOf<T>(schema: z.ZodType<T>, url: URL): T {
  const parsed = schema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'query'}: ${i.message}`).join('; ');
    throw new HttpError(400, 'INVALID_ARGUMENTS', `${url.pathname}: ${why}`);
  }
  return parsed.data;
}


export interface RunningHttpServer {
  port: number;
  token: string;
  /** The URL to open: it carries the token once; the page keeps it. */
  url: string;
  close(): Promise<void>;
}

/** Why the renderer cannot be served, or null when its index.html is there. */
export function rendererProblem(rendererDir: string): string | null {
  if (existsSync(join(rendererDir, 'index.html'))) return null;
  return `the desktop renderer is not built (${join(rendererDir, 'index.html')} is missing); run 'npm run build' first`;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

function sameSecret(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, 'BODY_TOO_LARGE', `the request body is over ${MAX_BODY_BYTES} bytes; send fewer or shorter arguments`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request's path and query on this server. Read as a URL relative to the server, `//x/api/runs`
 * would be a path on host x (and `//` no URL at all, a 500); it is this server's path `//x/api/runs`.
 */
function requestUrl(target: string, port: number): URL {
  if (!target.startsWith('/')) throw new HttpError(400, 'BAD_REQUEST', `'${target.slice(0, 80)}' is not a path on this server`);
  try {
    return new URL(`http://${LOOPBACK}:${port}${target}`);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', `'${target.slice(0, 80)}' is not a path on this server`);
  }
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const rendererDir = resolve(options.rendererDir);
  let port = 0;
  const compressed = new CompressedFiles();

  const allowedHosts = (): string[] => [`${LOOPBACK}:${port}`, `localhost:${port}`];
  const allowedOrigins = (): string[] => allowedHosts().map((host) => `http://${host}`);

  function checkApiRequest(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().includes(origin)) {
      throw new HttpError(403, 'FORBIDDEN_ORIGIN', `requests from origin ${origin} are not allowed`);
    }
    if (!sameSecret(bearerToken(req), token) && !sameSecret(cookieValue(req, TOKEN_COOKIE), token)) {
      throw new HttpError(401, 'UNAUTHORIZED', 'missing or wrong token: open the URL that turnlab serve printed');
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the arguments as Content-Type: application/json');
    }
  }

  /** GET routes take the token from the cookie, a bearer header or `?token=` (EventSource and downloads cannot set headers). */
  function checkStreamRequest(req: IncomingMessage, url: URL): void {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().includes(origin)) {
      throw new HttpError(403, 'FORBIDDEN_ORIGIN', `requests from origin ${origin} are not allowed`);
    }
    const query = url.searchParams.get('token') ?? undefined;
    if (!sameSecret(bearerToken(req), token) && !sameSecret(cookieValue(req, TOKEN_COOKIE), token) && !sameSecret(query, token)) {
      throw new HttpError(401, 'UNAUTHORIZED', 'missing or wrong token: open the URL that turnlab serve printed');
    }
  }

  async function handleExport(res: ServerResponse, url: URL, store: Store): Promise<void> {
    const query = queryOf(exportQuery, url);
    const named = query.runs ? query.runs.split(',').map(Number) : [];
    // Refused before the download starts: an unknown run or evaluation, another run's evaluation, or metrics asked of one.
    const evaluationId = query.evaluation === undefined ? undefined : Number(query.evaluation);
    const request = workbenchExport(store, { what: query.what, format: query.format, runIds: named, evaluationId });
    res.writeHead(200, {
      'Content-Type': query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': attachmentHeader(exportFileName(store, request, named.length === 0)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    await exportRows(store, request, res);
  }

  async function handleArchive(res: ServerResponse, url: URL, store: Store): Promise<void> {
    const checkpoint = requireCheckpoint(store, Number(queryOf(archiveQuery, url).id));
    const folder = checkpointFolder(store, checkpoint);
    if (!existsSync(folder)) throw new HttpError(404, 'NOT_FOUND', `the folder of checkpoint ${checkpoint.id} is gone`);
    const name = checkpointExportName(checkpoint);
    res.writeHead(200, {
      'Content-Type': 'application/x-tar',
      'Content-Disposition': attachmentHeader(`${name}.tar`),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    await pipeline(Readable.from(tarFolder(folder, name)), res);
  }

  function handleEvents(req: IncomingMessage, res: ServerResponse, events: RunEventWatcher): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Content-Type-Options': 'nosniff',
    });
    res.write('retry: 2000\n\n');
    const unsubscribe = events.subscribe((event) => res.write(`data: ${JSON.stringify(event)}\n\n`));
    // A comment now and then keeps proxies and idle timeouts from closing a quiet stream.
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    heartbeat.unref();
    req.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
    });
  }

  async function handleStream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${url.pathname} is read with GET`);
    checkStreamRequest(req, url);
    const { store, events } = options;
    try {
      if (url.pathname === '/api/events') {
        if (!events) throw new HttpError(404, 'NOT_FOUND', 'this server sends no events; poll instead');
        handleEvents(req, res, events);
      } else if (!store) {
        throw new HttpError(404, 'NOT_FOUND', `${url.pathname} is not served here`);
      } else if (url.pathname === '/api/export') {
        await handleExport(res, url, store);
      } else {
        await handleArchive(res, url, store);
      }
    } catch (error) {
      if (error instanceof RunAdminError) throw new ApiError(error.code, error.message);
      throw error;
    }
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    if (req.method !== 'POST') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'API methods are called with POST');
    checkApiRequest(req);
    const body = await readBody(req);
    let args: unknown;
    try {
      args = body.trim() === '' ? [] : JSON.parse(body);
    } catch {
      throw new HttpError(400, 'INVALID_JSON', 'the request body is not valid JSON (send a JSON array of arguments)');
    }
    const result = await options.api.call(method, args);
    sendJson(res, 200, { result: result ?? null });
  }

  async function handleStatic(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'METHOD_NOT_ALLOWED', 'only GET here');
    const problem = rendererProblem(rendererDir);
    if (problem) throw new HttpError(503, 'RENDERER_NOT_BUILT', problem);
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname);
    } catch {
      throw new HttpError(400, 'BAD_PATH', 'malformed path');
    }
    if (relative === '/' || relative === '') relative = '/index.html';
    const file = resolve(rendererDir, `.${relative}`);
    if (!file.startsWith(rendererDir + sep)) throw new HttpError(404, 'NOT_FOUND', 'no such file');
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new HttpError(404, 'NOT_FOUND', `no such file: ${url.pathname}`);
    const encoding = chooseEncoding(req.headers['accept-encoding'], extname(file));
    const body = encoding
      ? await compressed.get(file, `${info.mtimeMs}:${info.size}`, encoding, () => readFile(file))
      : await readFile(file);
    const headers: Record<string, string | string[]> = {
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': String(body.length),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
      Vary: 'Accept-Encoding',
    };
    if (encoding) headers['Content-Encoding'] = encoding;
    const given = url.searchParams.get('token') ?? undefined;
    if (relative === '/index.html' && sameSecret(given, token)) {
      headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`;
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (!allowedHosts().includes(req.headers.host ?? '')) {
        throw new HttpError(403, 'FORBIDDEN_HOST', `host ${req.headers.host ?? '(none)'} is not this server`);
      }
      const url = requestUrl(req.url ?? '/', port);
      const api = /^\/api\/([^/]+)$/.exec(url.pathname);
      if (STREAM_ROUTES.has(url.pathname) && req.method !== 'POST') await handleStream(req, res, url);
      else if (api) await handleApi(req, res, api[1]);
      else await handleStatic(req, res, url);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // The rest of a body too large is never read: the connection cannot carry another request.
      if (error instanceof HttpError && error.status === 413) res.setHeader('Connection', 'close');
      if (error instanceof HttpError) sendError(res, error.status, error.code, error.message);
      else if (error instanceof ApiError) sendError(res, STATUS_OF[error.code], error.code, error.message);
      else sendError(res, 500, 'INTERNAL', error instanceof Error ? error.message : String(error));
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, LOOPBACK, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    token,
    url: `http://${LOOPBACK}:${port}/?token=${token}`,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
