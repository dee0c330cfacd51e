/**
 * The one typed contract between main and renderer. Main implements it (api.ts), the preload
 * script exposes it over IPC, and the renderer calls it through IPC or HTTP alike.
 */
export interface AppInfo {
  version: string;
  dataDir: string;
}

export interface TurnLabApi {
  appInfo(): Promise<AppInfo>;
}

export type ApiMethod = keyof TurnLabApi;
export const API_METHODS: readonly ApiMethod[] = ['appInfo'] as const;
export const IPC_CHANNEL_PREFIX = 'turnlab:';
