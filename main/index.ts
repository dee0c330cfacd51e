import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, ipcMain } from 'electron';
import { API_METHODS, IPC_CHANNEL_PREFIX } from '../preload/contract';
import { createApi, type Api } from './api';
import { openStore, type Store } from './store/db';
import { RunManager } from './trainer-host/run-manager';

/** better-sqlite3 built for Electron's ABI (scripts/electron-native.mjs), when present. */
function electronSqliteBinding(): string | undefined {
  const path = join(app.getAppPath(), '.electron-native', `electron-${process.versions.electron}`, 'better_sqlite3.node');
  return existsSync(path) ? path : undefined;
}

/** The store in the app's data folder. */
function openAppStore(): Store {
  return openStore(app.getPath('userData'), {
    create: true,
    nativeBinding: electronSqliteBinding(),
    migrationsDir: join(app.getAppPath(), 'migrations'),
  });
}

/** Trainers run as the `turnlab` command under Electron's own Node, with the same SQLite build. */
function createRunManager(store: Store): RunManager {
  return new RunManager(store, {
    execPath: process.execPath,
    prefixArgs: [join(app.getAppPath(), 'bin', 'turnlab.js')],
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', TURNLAB_SQLITE_BINDING: electronSqliteBinding() ?? '' },
  });
}

function registerIpc(api: Api): void {
  for (const method of API_METHODS) {
    ipcMain.handle(IPC_CHANNEL_PREFIX + method, (_event, ...args: unknown[]) => api.call(method, args));
  }
}

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'TurnLab',
    webPreferences: {
      preload: join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  if (process.env.ELECTRON_RENDERER_URL) void window.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void window.loadFile(join(__dirname, '../renderer/index.html'));
}

app.setName('TurnLab');
void app.whenReady().then(() => {
  const store = openAppStore();
  const runManager = createRunManager(store);
  app.on('will-quit', () => {
    runManager.dispose();
    store.close();
  });
  registerIpc(createApi(store, { version: app.getVersion(), configsDir: join(app.getAppPath(), 'configs'), runManager }));
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
