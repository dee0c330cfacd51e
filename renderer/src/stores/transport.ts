// What differs between the desktop app and the browser beyond the API calls: events and
// downloads. In the app both go through the preload bridge; in the browser, server-sent
// events and GET links on `turnlab serve`.
import type { TurnLabEvent, TurnLabEvents } from '../../../preload/contract';

/** The key api.ts keeps the browser's token under. */
const TOKEN_KEY = 'turnlab.token';

function bridgeEvents(): TurnLabEvents | undefined {
  return (window as unknown as { turnlabEvents?: TurnLabEvents }).turnlabEvents;
}

/** True inside the Electron window, where saving goes through the app's dialogs. */
export function isDesktop(): boolean {
  return (window as unknown as { turnlab?: unknown }).turnlab !== undefined;
}

/** A same-origin URL of `turnlab serve` carrying the token (links and EventSource cannot set headers). */
export function serverUrl(path: string, params: Record<string, string> = {}): string {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) url.searchParams.set('token', token);
  return url.pathname + url.search;
}

/** Lets the browser download `url` as a file, named `fileName` (else as the server names it). */
export function download(url: string, fileName = ''): void {
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * Calls `listener` for each event. `onDown` tells whether events currently flow, so the caller
 * can poll while they do not (a server without an event stream, a dropped connection).
 */
export function subscribeEvents(listener: (event: TurnLabEvent) => void, onDown: (down: boolean) => void): () => void {
  const bridge = bridgeEvents();
  if (bridge) {
    onDown(false);
    return bridge.subscribe(listener);
  }
  if (typeof EventSource === 'undefined') {
    onDown(true);
    return () => {};
  }
  const source = new EventSource(serverUrl('/api/events'));
  source.onopen = () => onDown(false);
  // EventSource reconnects by itself after an error; poll until it does.
  source.onerror = () => onDown(true);
  source.onmessage = (message: MessageEvent<string>) => {
    try {
      listener(JSON.parse(message.data) as TurnLabEvent);
    } catch {
      // A line we cannot read is skipped; the next poll or event brings the state anyway.
    }
  };
  return () => source.close();
}
