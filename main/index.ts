import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, shell, utilityProcess, type IpcMainInvokeEvent } from 'electron';
import { API_METHODS, EVENT_CHANNEL, IPC_CHANNEL_PREFIX } from '../preload/contract';
import { createApi, type Api, type SaveDialogs } from './api';
import { chooseRendererUrl } from './renderer-url';
import { recoverInterruptedRuns } from './services/recovery';
import { RunEventWatcher } from './services/run-events';
import { openStore, type Store } from './store/db';
import { RunManager } from './trainer-host/run-manager';
import { asTrainerMessage, type HostMessage } from './trainer-host/channel';
import type { TrainerLauncher } from './trainer-host/trainer-process';

/** better-sqlite3 built for Electron's ABI (scripts/electron-native.mjs), when present. */
function electronSqliteBinding(): string | undefined {
  const path = join(app.getAppPath(), '.electron-native', `electron-${process.versions.electron}`, 'better_sqlite3.node');
  return existsSync(path) ? path : undefined;
}

/** The store in the app's data folder (TURNLAB_DATA_DIR overrides it, e.g. for the smoke test). */
function openAppStore(): Store {
  return openStore(process.env.TURNLAB_DATA_DIR || app.getPath('userData'), {
    create: true,
    nativeBinding: electronSqliteBinding(),
    migrationsDir: join(app.getAppPath(), 'migrations'),
  });
}

/**
 * Trainers and evaluations run as the `turnlab` command in Electron's utilityProcess: a process
 * of their own, so a crashing or out-of-memory trainer never takes the window down. They load
 * the Electron-ABI build of better-sqlite3 through TURNLAB_SQLITE_BINDING. They talk to the app
 * over the utilityProcess message port (trainer-host/channel.ts): a stop request is a message,
 * since `kill()` is a hard kill on Windows and would save no checkpoint.
 */
function utilityTrainerLauncher(): TrainerLauncher {
  const binPath = join(app.getAppPath(), 'bin', 'turnlab.js');
  const env = { ...process.env, TURNLAB_SQLITE_BINDING: electronSqliteBinding() ?? '' };
  return (args) => {
    const child = utilityProcess.fork(binPath, args, { env, stdio: 'pipe', serviceName: 'TurnLab trainer' });
    return {
      get pid() {
        return child.pid;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      requestStop: () => {
        const stop: HostMessage = { type: 'stop' };
        child.postMessage(stop);
      },
      onMessage: (listener) => {
        child.on('message', (raw: unknown) => {
          const message = asTrainerMessage(raw);
          if (message) listener(message);
        });
      },
      onExit: (listener) => {
        child.once('exit', (code) => listener(code, null));
      },
      onError: (listener) => {
        child.once('error', (type, location) => listener(new Error(`trainer process failed: ${type} at ${location}`)));
      },
    };
  };
}

function createRunManager(store: Store): RunManager {
  return new RunManager(store, utilityTrainerLauncher());
}

/** The page the app loads: the dev server in a development build only, the built index.html otherwise. */
function rendererUrl(): string {
  return chooseRendererUrl({
    packaged: app.isPackaged,
    env: process.env,
    builtPage: pathToFileURL(join(__dirname, '../renderer/index.html')).href,
  });
}

/** Only our own page may call the API: not another frame, not a page navigated elsewhere. */
function isAppFrame(url: string | undefined): boolean {
  if (!url) return false;
  const expected = new URL(rendererUrl());
  const actual = new URL(url);
  if (expected.protocol === 'file:') return actual.protocol === 'file:' && actual.pathname === expected.pathname;
  return actual.origin === expected.origin;
}

function checkSender(event: IpcMainInvokeEvent): void {
  if (!isAppFrame(event.senderFrame?.url)) throw new Error('IPC refused: the sender is not the TurnLab window');
}

function registerIpc(api: Api): void {
  for (const method of API_METHODS) {
    ipcMain.handle(IPC_CHANNEL_PREFIX + method, (event, ...args: unknown[]) => {
      checkSender(event);
      return api.call(method, args);
    });
  }
}

/** Save dialogs parented to the focused window. */
function desktopDialogs(): SaveDialogs {
  const parent = () => BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];
  return {
    async chooseFile(suggestedName) {
      const result = await dialog.showSaveDialog(parent(), { defaultPath: join(app.getPath('downloads'), suggestedName) });
      return result.canceled || !result.filePath ? null : result.filePath;
    },
    async chooseFolder(title) {
      const result = await dialog.showOpenDialog(parent(), {
        title,
        properties: ['openDirectory', 'createDirectory'],
      });
      return result.canceled || result.filePaths.length === 0 ? null : result.filePaths[0];
    },
  };
}

function createWindow(events: RunEventWatcher): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'TurnLab',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  const contents = window.webContents;
  // The window shows our page only; links to the web open in the browser instead.
  contents.on('will-navigate', (event, url) => {
    if (!isAppFrame(url)) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  const unsubscribe = events.subscribe((event) => {
    if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, event);
  });
  window.on('closed', unsubscribe);
  void window.loadURL(rendererUrl());
}

app.setName('TurnLab');
void app.whenReady().then(() => {
  const store = openAppStore();
  recoverInterruptedRuns(store);
  const runManager = createRunManager(store);
  const events = new RunEventWatcher(store);
  app.on('will-quit', () => {
    runManager.dispose();
    events.stop();
    store.close();
  });
  registerIpc(
    createApi(store, {
      version: app.getVersion(),
      configsDir: join(app.getAppPath(), 'configs'),
      runManager,
      events,
      dialogs: desktopDialogs(),
    }),
  );
  createWindow(events);
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow(events);
  });
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
