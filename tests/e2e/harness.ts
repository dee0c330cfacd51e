// What every e2e test needs around its assertions: a built renderer, `turnlab serve` as a real
// process on a data folder, and Debian's Chromium driven by playwright-core.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { makeFixtureDataDir, type FixtureDataDir, type FixtureOptions } from '../helpers/fixtures';
import { CHROMIUM_PATH, NEEDS_CHROMIUM } from '../setup/requirements';

export const root = resolve(import.meta.dirname, '../..');
export const CHROMIUM = CHROMIUM_PATH;
/** Whether Debian's Chromium is installed; the browser tests skip without it (the skip reporter says so). */
export const hasChromium = NEEDS_CHROMIUM.present();
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

function newestMtime(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/**
 * Builds the app when the renderer bundle (or one of `alsoNeeded`, paths under the repository) is
 * missing, or the bundle is older than the renderer's sources: the tests must see today's views.
 */
/** Why the workbench must be built before a browser opens it (missing, or older than its sources); null when it is ready. */
export function buildReason(...alsoNeeded: string[]): string | null {
  const index = join(root, 'out/renderer/index.html');
  if ([index, ...alsoNeeded.map((path) => join(root, path))].some((path) => !existsSync(path))) return 'out/ is missing';
  // TURNLAB_E2E_KEEP_BUILD=1 keeps an existing build even when sources are newer (edits while tests run).
  const stale = !process.env.TURNLAB_E2E_KEEP_BUILD && statSync(index).mtimeMs < newestMtime(join(root, 'renderer/src'));
  return stale ? 'out/ is older than renderer/src (TURNLAB_E2E_KEEP_BUILD=1 keeps it)' : null;
}

export function ensureBuilt(...alsoNeeded: string[]): void {
  if (buildReason(...alsoNeeded) !== null) execFileSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'ignore' });
}

export interface Serve {
  /** The one line `turnlab serve` prints: the address with its token. */
  url: string;
  /** The server process's id (the UI benchmark reads its peak memory). */
  pid: number;
  token: string;
  /** The exit code once the process has ended, null while it runs. */
  readonly exitCode: number | null;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** An absolute address in the app for a route hash such as `/runs/1`. */
  at(hash: string): string;
  /** SIGINT when still running; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `turnlab serve` on `dataDir` and an ephemeral port, resolving once it prints its URL. */
export async function startServe(dataDir: string): Promise<Serve> {
  const child = spawn(process.execPath, [join(root, 'bin/turnlab.js'), 'serve', '--data-dir', dataDir, '--port', '0', '--no-open'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((done, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => done(line.trim()));
    child.once('exit', (code) => reject(new Error(`turnlab serve exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid!,
    token: new URL(url).searchParams.get('token')!,
    get exitCode() {
      return child.exitCode;
    },
    stderr: () => stderr,
    at: (hash) => new URL(`/#${hash}`, url).toString(),
    stop: () => {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

export interface OpenBrowser {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

const SHARED_CHROMIUM = Symbol.for('turnlab.e2e.chromium');

/**
 * One Chromium for all the browser test files a test worker runs (they share its process): each
 * file gets a context of its own (storage, cookies, viewport, downloads), not a browser of its
 * own, whose start cost some 2 CPU s a file on the 2-core machine. Playwright ends it with the
 * worker's process; one that died is launched again.
 */
async function sharedChromium(): Promise<Browser> {
  const holder = globalThis as unknown as Record<symbol, Promise<Browser> | undefined>;
  const running = holder[SHARED_CHROMIUM];
  if (running) {
    const browser = await running.catch(() => null);
    if (browser?.isConnected()) return browser;
  }
  const launching = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  holder[SHARED_CHROMIUM] = launching;
  return launching;
}

/** Ends the shared Chromium, for a process with no test worker to end it (a benchmark). */
export async function closeSharedChromium(): Promise<void> {
  const holder = globalThis as unknown as Record<symbol, Promise<Browser> | undefined>;
  const running = holder[SHARED_CHROMIUM];
  holder[SHARED_CHROMIUM] = undefined;
  const browser = await running?.catch(() => null);
  await browser?.close();
}

/** Headless Chromium with one page in a fresh context; close() closes the context. */
export async function launchBrowser(options: BrowserContextOptions): Promise<OpenBrowser> {
  const browser = await sharedChromium();
  const context = await browser.newContext(options);
  const page = await context.newPage();
  return { browser, page, close: () => context.close() };
}

export interface OpenWorkbench {
  fixture: FixtureDataDir;
  serve: Serve;
  browser: OpenBrowser;
  page: Page;
  close(): Promise<void>;
}

/**
 * The set-up most browser tests share: the app built, a fixture data folder (`addRuns` may store
 * more runs in it before the server opens it), `turnlab serve` on it, and Chromium on its page.
 */
export async function openWorkbench(options: {
  fixture?: FixtureOptions;
  addRuns?: (dataDir: string) => void;
  browser: BrowserContextOptions;
}): Promise<OpenWorkbench> {
  ensureBuilt();
  const fixture = makeFixtureDataDir(options.fixture);
  options.addRuns?.(fixture.dir);
  const serve = await startServe(fixture.dir);
  const browser = await launchBrowser(options.browser);
  await browser.page.goto(serve.url);
  return {
    fixture,
    serve,
    browser,
    page: browser.page,
    async close() {
      await browser.close();
      await serve.stop();
      fixture.cleanup();
    },
  };
}
