import type { EnvInfo, StepResult } from './types';

/**
 * The canonical action name that `text` names, or null. Matching ignores case and surrounding
 * space, as RAGEN's parser does, so `left` and ` LEFT ` both mean `Left`.
 */
export function matchActionName<T extends string>(text: string, names: readonly T[]): T | null {
  const wanted = text.trim().toLowerCase();
  for (const name of names) if (name.toLowerCase() === wanted) return name;
  return null;
}

/** The result of an action text that names no legal action: nothing changes, no reward. */
export function invalidActionResult(observation: string, done: boolean, extra: Record<string, unknown> = {}): StepResult {
  const info: EnvInfo = { success: false, actionIsValid: false, actionIsEffective: false, ...extra };
  return { observation, reward: 0, done, info };
}
