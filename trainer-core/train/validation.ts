import type { RunConfig } from '../config/schema';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';

/**
 * The optimal policy's success rate on the validation seeds, per tag (`val/<tag>/optimal_success`):
 * what the solver achieves from the same start states within the same action budget (the env's,
 * or agent_proxy.max_turn x max_actions_per_turn where that is less). Tags
 * whose env has no solver are left out.
 */
export function optimalSuccessByTag(cfg: RunConfig, resolveSpec?: EnvSpecResolver): Record<string, number> {
  const es = new EnvStateManager(cfg, 'val', { resolveSpec });
  es.reset();
  const sums = new Map<string, { total: number; count: number }>();
  // The policy's budget is the env's, or fewer where the turns and actions a turn allow fewer.
  const turnsAllow = cfg.agent_proxy.max_turn * cfg.agent_proxy.max_actions_per_turn;
  for (const entry of es.entries) {
    if (!entry.env.optimalSuccessProbability) continue;
    const p = entry.env.optimalSuccessProbability(Math.min(entry.maxActionsPerTraj, turnsAllow));
    const s = sums.get(entry.tag) ?? { total: 0, count: 0 };
    s.total += p;
    s.count += 1;
    sums.set(entry.tag, s);
  }
  return Object.fromEntries([...sums.entries()].map(([tag, s]) => [tag, s.total / s.count]));
}
