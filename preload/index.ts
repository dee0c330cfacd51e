import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { API_METHODS, EVENT_CHANNEL, IPC_CHANNEL_PREFIX, type TurnLabApi, type TurnLabEvent, type TurnLabEvents } from './contract';

const api = Object.fromEntries(
  API_METHODS.map((method) => [method, (...args: unknown[]) => ipcRenderer.invoke(IPC_CHANNEL_PREFIX + method, ...args)]),
) as unknown as TurnLabApi;

// Only the event payload crosses over, never the IpcRendererEvent (it would expose ipcRenderer).
const events: TurnLabEvents = {
  subscribe(listener) {
    const forward = (_event: IpcRendererEvent, payload: TurnLabEvent) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => void ipcRenderer.off(EVENT_CHANNEL, forward);
  },
};

contextBridge.exposeInMainWorld('turnlab', api);
contextBridge.exposeInMainWorld('turnlabEvents', events);
