import { responsePrefixOf, TEMPLATES, type StoredRunConfig } from '../../trainer-core';

/**
 * When the `ragen` template began to open each reply with `<think>` (`<answer>`), as RAGEN does
 * (2026-12-02 09:43:37 UTC): a run created before saw no prefix, so its replay and exported turns
 * must not show one. A run created before and resumed after saw both; it is shown as created.
 */
export const RAGEN_PREFIX_SINCE = Date.UTC(2026, 11, 2, 9, 43, 37);

/** The tag a stored run's prompts opened each reply with, from its config (an older one may lack keys) and creation time. */
export function storedResponsePrefix(config: StoredRunConfig, createdAt: number): string {
  const proxy = config.agent_proxy;
  const name = proxy?.template ?? 'ragen';
  // A stored config is read as written: a template this TurnLab does not know opened nothing known.
  if (!(TEMPLATES as readonly string[]).includes(name)) return '';
  if (name === 'ragen' && createdAt < RAGEN_PREFIX_SINCE) return '';
  return responsePrefixOf(name, proxy?.enable_think ?? true);
}
