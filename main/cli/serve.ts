import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import { dataDirOf } from './context';
import { UserError } from './errors';
import { asUserError } from './with-store';

interface ServeOptions {
  port: number;
  open: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) {
    throw new InvalidArgumentError(`'${value}' is not a port number (0 to 65535; 0 picks a free one)`);
  }
  return port;
}

/** Opens the URL in the default browser; a machine without one just keeps the printed URL. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser opener: the URL is on stdout.
  }
}

function waitForStopSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveSignal(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('serve the workbench on 127.0.0.1 for a browser; prints the URL with its access token')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 0)
    .option('--no-open', 'do not open a browser')
    .action(async (options: ServeOptions, command: Command) => {
      // Loaded on use: registering every command must not pull in SQLite or the server.
      const [{ openStore }, { createApi }, { startHttpServer, rendererProblem }, { RunManager }, { recoverInterruptedRuns }, { RunEventWatcher }] =
        await Promise.all([
          import('../store/db'),
          import('../api'),
          import('../http'),
          import('../trainer-host/run-manager'),
          import('../services/recovery'),
          import('../services/run-events'),
        ]);
      const { nodeTrainerLauncher } = await import('../trainer-host/trainer-process');
      const dataDir = dataDirOf(command);
      let store;
      try {
        store = openStore(dataDir, { create: true });
      } catch (error) {
        throw asUserError(error);
      }
      const recovered = recoverInterruptedRuns(store);
      if (recovered.length) process.stderr.write(`turnlab serve: marked run(s) ${recovered.join(', ')} interrupted (their trainer is gone)\n`);
      const events = new RunEventWatcher(store);
      const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
      const rendererDir = fileURLToPath(new URL('../../out/renderer/', import.meta.url));
      // Trainers run as `turnlab` child processes of this server, on the same data folder.
      const runManager = new RunManager(
        store,
        nodeTrainerLauncher({ execPath: process.execPath, binPath: fileURLToPath(new URL('../../bin/turnlab.js', import.meta.url)), env: process.env }),
      );
      const configsDir = fileURLToPath(new URL('../../configs/', import.meta.url));
      let server;
      try {
        server = await startHttpServer({
          api: createApi(store, { version, configsDir, runManager, events }),
          rendererDir,
          port: options.port,
          store,
          events,
        });
      } catch (error) {
        store.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') {
          throw new UserError(`cannot listen on 127.0.0.1:${options.port} (${code}); choose another --port`);
        }
        throw error;
      }
      const problem = rendererProblem(rendererDir);
      if (problem) process.stderr.write(`turnlab serve: ${problem}; the API still answers\n`);
      process.stderr.write(`turnlab serve: data folder ${dataDir}; press Ctrl+C to stop\n`);
      process.stdout.write(`${server.url}\n`);
      if (options.open) openBrowser(server.url);
      await waitForStopSignal();
      runManager.dispose();
      events.stop();
      await server.close();
      store.close();
    });
}
