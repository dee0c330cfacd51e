// The desktop API: one table from each contract method to an argument schema and the store call
// that answers it, gathered from the route files by what they serve (reading runs, changing them,
// checkpoints, Compare and Replay, the cluster). IPC and HTTP both dispatch through `call`, so
// both validate the same way and a malformed request never reaches the store.
import { z } from 'zod';
import { type ApiMethod, type TurnLabApi, API_METHODS } from '../../preload/contract';
import type { Store } from '../store/db';
import { StoreError } from '../store/errors';
import { ApiError, type ApiOptions, type Route, type RouteTable } from './support';
import { checkpointRoutes } from './checkpoint-routes';
import { clusterRoutes } from './cluster-routes';
import { compareReplayRoutes } from './compare-replay-routes';
import { runControlRoutes } from './run-control-routes';
import { runReadRoutes } from './run-read-routes';

export { ApiError, type ApiOptions, type SaveDialogs } from './support';

const ROUTES: RouteTable = { ...clusterRoutes, ...runReadRoutes, ...runControlRoutes, ...checkpointRoutes, ...compareReplayRoutes };

export function isApiMethod(name: string): name is ApiMethod {
  return (API_METHODS as readonly string[]).includes(name);
}

/**
 * A bound's issue in words that name the field (`name must have at most 200 characters`): the
 * workbench shows the message without its argument path, and zod's own ("Too big: expected
 * string to have <=200 characters") names neither the field nor the unit a person counts in.
 */
function issueMessage(issue: z.core.$ZodIssue): string {
  if ((issue.code !== 'too_big' && issue.code !== 'too_small') || !/^Too (big|small):/.test(issue.message)) return issue.message;
  const field = [...issue.path].reverse().find((p): p is string => typeof p === 'string') ?? 'the value';
  const bound = String(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  const side = issue.code === 'too_big' ? 'at most' : 'at least';
  if (issue.origin === 'string') return issue.code === 'too_small' && bound === '1' ? `${field} must not be empty` : `${field} must have ${side} ${bound} characters`;
  if (issue.origin === 'array') return `${field} must hold ${side} ${bound} items`;
  return `${field} must be ${side} ${bound}`;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `argument ${issue.path.map(String).join('.')}` : 'arguments';
      return `${where}: ${issueMessage(issue)}`;
    })
    .join('; ');
}

/** Validates `args` for `method`; throws ApiError('INVALID_ARGUMENTS') naming what is wrong. */
export function parseArgs<M extends ApiMethod>(method: M, args: unknown): Parameters<TurnLabApi[M]> {
  if (!Array.isArray(args)) throw new ApiError('INVALID_ARGUMENTS', `${method}: arguments must be a JSON array`);
  const parsed = ROUTES[method].args.safeParse(args);
  if (!parsed.success) throw new ApiError('INVALID_ARGUMENTS', `${method}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export interface Api extends TurnLabApi {
  /** Validates and runs one method by name: the entry point for IPC and HTTP. */
  call(method: string, args: unknown): Promise<unknown>;
}

function dispatch(store: Store, options: ApiOptions, method: string, args: unknown): unknown {
  if (!isApiMethod(method)) {
    throw new ApiError('UNKNOWN_METHOD', `unknown API method '${method}' (known: ${API_METHODS.join(', ')})`);
  }
  const valid = parseArgs(method, args);
  const route = ROUTES[method] as unknown as Route<ApiMethod> & {
    handle: (store: Store, options: ApiOptions, ...a: unknown[]) => unknown;
  };
  try {
    return route.handle(store, options, ...(valid as unknown[]));
  } catch (error) {
    if (error instanceof StoreError && error.code === 'RUN_NOT_FOUND') throw new ApiError('NOT_FOUND', error.message);
    throw error;
  }
}

export function createApi(store: Store, options: ApiOptions): Api {
  const call = async (method: string, args: unknown): Promise<unknown> => dispatch(store, options, method, args);
  const methods = Object.fromEntries(
    API_METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]),
  ) as unknown as TurnLabApi;
  return { ...methods, call };
}
