import { join } from 'node:path';
import { app, BrowserWindow, ipcMain } from 'electron';
import { API_METHODS, IPC_CHANNEL_PREFIX, type TurnLabApi } from '../preload/contract';

function createApi(): TurnLabApi {
  return {
    appInfo: async () => ({ version: app.getVersion(), dataDir: app.getPath('userData') }),
  };
}

function registerIpc(api: TurnLabApi): void {
  for (const method of API_METHODS) {
    ipcMain.handle(IPC_CHANNEL_PREFIX + method, (_event, ...args: unknown[]) =>
      (api[method] as (...a: unknown[]) => unknown)(...args),
    );
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
  registerIpc(createApi());
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
