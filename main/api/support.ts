// What every group of the API's routes shares: the refusal type, the server's options, the route
// table's types, and the guards that turn a missing run, manager or dialog into a refusal.
import { z } from 'zod';
import type { ApiErrorCode, ApiMethod, BackendAvailabilityDto, TurnLabApi } from '../../preload/contract';
import type { Store } from '../store/db';
import type { RunManager } from '../trainer-host/run-manager';
import type { EvaluationRecord } from '../store/types';
import { RunAdminError } from '../services/run-admin';
import type { RunEventWatcher } from '../services/run-events';
import { backendProber } from '../services/backend-probe';

/** A refusal the caller can act on; `code` picks the HTTP status. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

/** Where the user wants a file or folder; null when they cancel. */
export interface SaveDialogs {
  chooseFile(suggestedName: string): Promise<string | null>;
  /** `title` says what goes into the folder. */
  chooseFolder(title: string): Promise<string | null>;
}

export interface ApiOptions {
  /** The TurnLab version appInfo reports. */
  version: string;
  /** Folder of ready run configs that listConfigs offers. */
  configsDir?: string;
  /** Starts and stops trainer processes; absent, the run-control methods are refused. */
  runManager?: RunManager;
  /** Told after a call changed runs, so listeners hear of it before the next poll. */
  events?: RunEventWatcher;
  /** The desktop app's file dialogs; absent (browser mode), the save methods are refused. */
  dialogs?: SaveDialogs;
}

export const probers = new WeakMap<ApiOptions, () => Promise<BackendAvailabilityDto[]>>();

/** Backends are probed once per server (its options), in a process of its own. */
export function probeBackends(options: ApiOptions): Promise<BackendAvailabilityDto[]> {
  let prober = probers.get(options);
  if (!prober) {
    prober = backendProber(requireManager(options, 'listBackends').launcher);
    probers.set(options, prober);
  }
  return prober();
}

/** Runs a store-changing call: service refusals become API errors, listeners hear of the change. */
export function managing<T>(options: ApiOptions, work: () => T): T {
  try {
    const result = work();
    options.events?.check();
    return result;
  } catch (error) {
    if (error instanceof RunAdminError) throw new ApiError(error.code, error.message);
    throw error;
  }
}

export async function managingAsync<T>(options: ApiOptions, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    options.events?.check();
    return result;
  } catch (error) {
    if (error instanceof RunAdminError) throw new ApiError(error.code, error.message);
    throw error;
  }
}

export function activeRunIds(options: ApiOptions): Set<number> {
  return new Set((options.runManager?.list() ?? []).map((t) => t.runId));
}

/** `method` names the refused call: the message is all that a script's log or a toast shows. */
export function requireDialogs(options: ApiOptions, method: ApiMethod): SaveDialogs {
  if (!options.dialogs) throw new ApiError('REFUSED', `${method}: saving to a chosen place works in the desktop app; in the browser use the download links`);
  return options.dialogs;
}

export function requireManager(options: ApiOptions, method: ApiMethod): RunManager {
  if (!options.runManager) throw new ApiError('INVALID_ARGUMENTS', `${method} needs run control, which this server was started without`);
  return options.runManager;
}

/** A trainer that refused to start (bad config, damaged checkpoint) is the caller's to fix. */
export function asRefusal<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    throw new ApiError('INVALID_ARGUMENTS', error instanceof Error ? error.message : String(error));
  });
}

export type Handler<M extends ApiMethod> = (store: Store, options: ApiOptions, ...args: Parameters<TurnLabApi[M]>) =>
  | Awaited<ReturnType<TurnLabApi[M]>>
  | ReturnType<TurnLabApi[M]>;

export interface Route<M extends ApiMethod> {
  /** The positional arguments as a tuple; extra arguments are refused. */
  args: z.ZodType<Parameters<TurnLabApi[M]>>;
  handle: Handler<M>;
}

export type RouteTable = { [M in ApiMethod]: Route<M> };

export function requireRun(store: Store, runId: number): void {
  if (!store.runs.get(runId)) throw new ApiError('NOT_FOUND', `unknown run ${runId}: no run has this id (the Runs view lists them)`);
}

export function requireEvaluation(store: Store, evaluationId: number): EvaluationRecord {
  const evaluation = store.evaluations.get(evaluationId);
  if (!evaluation) throw new ApiError('NOT_FOUND', `unknown evaluation ${evaluationId}: no evaluation has this id (the Checkpoints view lists them)`);
  return evaluation;
}
