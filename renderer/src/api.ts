// The renderer's one way to the main side: the Electron preload bridge when the page runs in
// the desktop app, else HTTP to `turnlab serve` with the token the printed URL carried.
import { API_METHODS, type ApiMethod, type TurnLabApi } from '../../preload/contract';
import { withoutApiNames } from './api-messages';

const TOKEN_KEY = 'turnlab.token';

/** Takes `?token=` off the address bar into sessionStorage, so it survives reloads but not the tab. */
function takeToken(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

async function callOverHttp(token: string | null, method: ApiMethod, args: unknown[]): Promise<unknown> {
  // JSON turns a trailing `undefined` into null, which the server would refuse for an optional
  // argument; leave trailing undefined arguments out instead.
  let length = args.length;
  while (length > 0 && args[length - 1] === undefined) length -= 1;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`/api/${method}`, {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify(args.slice(0, length)),
  });
  const body = (await response.json().catch(() => null)) as { result?: unknown; error?: { message?: string } } | null;
  if (!response.ok) {
    throw new Error(body?.error?.message ?? `${method} failed with HTTP ${response.status}`);
  }
  return body?.result;
}

function httpApi(): TurnLabApi {
  const token = takeToken();
  return Object.fromEntries(
    API_METHODS.map((method) => [method, (...args: unknown[]) => callOverHttp(token, method, args)]),
  ) as unknown as TurnLabApi;
}

function createClient(): TurnLabApi {
  const client = (window as unknown as { turnlab?: TurnLabApi }).turnlab ?? httpApi();
  return Object.fromEntries(
    API_METHODS.map((method) => [
      method,
      async (...args: unknown[]) => {
        try {
          return await (client[method] as (...a: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          if (error instanceof Error) error.message = withoutApiNames(error.message);
          throw error;
        }
      },
    ]),
  ) as unknown as TurnLabApi;
}

export const api: TurnLabApi = createClient();
