import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { app, BrowserWindow, ipcMain } from 'electron';
import { API_METHODS, IPC_CHANNEL_PREFIX } from '../preload/contract';
import { createApi, type Api } from './api';
import { openStore, type Store } from './store/db';

/** The store in the app's data folder, with better-sqlite3 built for Electron's ABI when present. */
function openAppStore(): Store {
  const nativeBinding = join(app.getAppPath(), '.electron-native', `electron-${process.versions.electron}`, 'better_sqlite3.node');
  return openStore(app.getPath('userData'), {
    create: true,
    nativeBinding: existsSync(nativeBinding) ? nativeBinding : undefined,
    migrationsDir: join(app.getAppPath(), 'migrations'),
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
  app.on('will-quit', () => store.close());
  registerIpc(createApi(store, { version: app.getVersion() }));
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
