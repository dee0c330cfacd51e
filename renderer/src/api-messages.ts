// Refusals as the person at the form reads them, apart from the client that calls the API.
import { API_METHODS } from '../../preload/contract';

const INTERNAL_PREFIX = new RegExp(`^(${API_METHODS.join('|')}): (arguments?(?: [\\w.]+)?: )?`);
/** What Electron puts before an error thrown in the main process's handler. */
const IPC_PREFIX = /^Error invoking remote method '[^']*': (\w*Error: )?/;

/**
 * The server names the method and argument a refusal is about (`exportCheckpointModel: argument
 * 0.out: ...`), for programs; the person at the form reads only what is wrong.
 */
export function withoutApiNames(message: string): string {
  return message.replace(IPC_PREFIX, '').replace(INTERNAL_PREFIX, '');
}
