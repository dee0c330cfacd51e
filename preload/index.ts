import { contextBridge, ipcRenderer } from 'electron';
import { API_METHODS, IPC_CHANNEL_PREFIX, type TurnLabApi } from './contract';

const api = Object.fromEntries(
  API_METHODS.map((method) => [method, (...args: unknown[]) => ipcRenderer.invoke(IPC_CHANNEL_PREFIX + method, ...args)]),
) as unknown as TurnLabApi;

contextBridge.exposeInMainWorld('turnlab', api);
