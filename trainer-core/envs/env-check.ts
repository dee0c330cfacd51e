import { deriveSeed, Rng } from '../rng';
import { createChecked } from './custom-loader';
import { distanceProblem } from './distance-check';
import { EnvConfigError } from './errors';
import { EnvModuleError, guardEnv } from './guarded-env';
import type { Env, EnvSpec, StepResult } from './types';

/**
 * `turnlab check`: plays seeded episodes of an environment and lists every problem found, one
 * line each, naming the call and the field. Per seed it plays random actions on one instance
 * that has already played the other seeds and again on a fresh one: both must give the same
 * episode (reset(seed) decides everything, and no state leaks from one episode to the next).
 * Then it follows the solver's plan, which must end in success, and asks the optimal success
 * probability.
 */

export interface CheckOptions {
  seeds: readonly number[];
  /** Random actions per episode at most (an env may not end by itself). */
  maxSteps: number;
  /** The budget optimalSuccessProbability is asked with. */
  actionBudget: number;
}

export interface CheckReport {
  problems: string[];
  /** Random-action episodes played (twice each), and the ones that ended by themselves. */
  episodes: number;
  episodesEnded: number;
  solverEpisodes: number;
  hasSolver: boolean;
}

/** One call and what came back, for comparing two plays of the same seed. */
interface TraceEntry {
  call: string;
  fields: Record<string, unknown>;
}

export function checkEnv(spec: EnvSpec, envOptions: Record<string, unknown>, label: string, options: CheckOptions): CheckReport {
  const report: CheckReport = { problems: [], episodes: 0, episodesEnded: 0, solverEpisodes: 0, hasSolver: false };
  const seen = new Set<string>();
  // The same fault usually shows on every seed: report it once, for the first seed.
  const problem = (key: string, text: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    report.problems.push(text);
  };
  const record = (error: EnvModuleError) => error.lines.forEach((line, i) => problem(`${error.method}:${error.fields[i]}`, line));
  const attempt = <T>(fn: () => T): T | null => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof EnvModuleError) record(error);
      else if (error instanceof EnvConfigError) problem(error.message, error.message);
      else if (error instanceof Error) problem(error.message, `${label}: the check stopped on a malformed result: ${error.message}`);
      else throw error;
      return null;
    }
  };
  const make = () => attempt(() => guardEnv(createChecked(spec, envOptions, label), label, record));

  const shared = make();
  if (!shared) return report;
  attempt(() => {
    shared.instructions();
    shared.legend();
    shared.actionNames();
  });
  for (const seed of options.seeds) {
    // Traces are kept up to a failing call, so an episode that breaks is still compared.
    const [firstTrace, secondTrace]: TraceEntry[][] = [[], []];
    const first = attempt(() => playRandom(shared, seed, options.maxSteps, firstTrace));
    const fresh = make();
    const second = fresh && attempt(() => playRandom(fresh, seed, options.maxSteps, secondTrace));
    const complete = first !== null && second !== null;
    if (complete) report.episodes++;
    if (first === true) report.episodesEnded++;
    const difference = firstDifference(firstTrace, secondTrace, complete);
    if (difference) {
      problem(
        `determinism:${difference.field}`,
        `${label}: seed ${seed} is not reproducible: ${difference.call} gave ${difference.field} ${show(difference.a)} on an instance that had played other episodes and ${show(difference.b)} on a fresh one; reset(seed) must decide the whole episode (use the seeded Rng, not Math.random, and reset every field)`,
      );
    }
    const solver = make();
    if (solver?.solve) {
      report.hasSolver = true;
      const outcome = attempt(() => followSolver(solver, seed, options.actionBudget));
      if (outcome?.followed) report.solverEpisodes++;
      if (outcome?.problem) problem(`solve:${outcome.problem.split(':')[0]}`, `${label}: ${outcome.problem} (episode seed ${seed})`);
    } else if (solver) {
      // Without a plan to follow, each optional method is still called once for its shape.
      attempt(() => {
        solver.reset(seed);
        solver.planTurn?.({ turnsLeft: options.actionBudget, actionsLeft: options.actionBudget, maxActionsPerTurn: 1 });
        solver.distanceToGoal?.();
        solver.optimalSuccessProbability?.(options.actionBudget);
      });
    }
  }
  return report;
}

/** Plays random actions into `trace`; true when the env ended the episode itself. */
function playRandom(env: Env, seed: number, maxSteps: number, trace: TraceEntry[]): boolean {
  const rng = new Rng(deriveSeed(seed, 'check'));
  const observation = env.reset(seed);
  trace.push({ call: `reset(${seed})`, fields: { observation, 'render()': env.render(), 'renderState()': env.renderState() } });
  const names = env.actionNames();
  for (let i = 0; i < maxSteps; i++) {
    // Free-text envs get numbers and words: some valid somewhere, most not, all must be handled.
    const action = names ? rng.choice(names) : rng.choice([String(rng.int(100)), 'yes', 'Left', '']);
    const result: StepResult = env.step(action);
    trace.push({
      call: `step ${i + 1}, step(${JSON.stringify(action)})`,
      fields: { observation: result.observation, reward: result.reward, done: result.done, info: result.info, 'render()': env.render(), 'renderState()': env.renderState() },
    });
    if (result.done) return true;
  }
  return false;
}

/** Follows solve()'s plan from the start; a plan that does not end in success is a problem. */
function followSolver(env: Env, seed: number, budget: number): { followed: boolean; problem: string | null } {
  env.reset(seed);
  const plan = env.solve!();
  const probability = env.optimalSuccessProbability?.(budget);
  if (plan === null) return { followed: false, problem: null };
  // Distances along the way, judged only once the plan has proved to reach the goal.
  const distances: Array<number | null> = [];
  const measure = () => {
    if (env.distanceToGoal) distances.push(env.distanceToGoal());
  };
  measure();
  let last: StepResult | null = null;
  for (const action of plan) {
    last = env.step(action);
    measure();
    if (last.done) break;
  }
  if (!last?.done || !last.info.success) {
    const how = last === null ? 'is empty' : last.done ? 'ended without success' : last.info?.success === true ? 'reached success, but step() never returned done: true' : 'left the episode unfinished';
    return { followed: true, problem: `solve(): its plan of ${plan.length} action${plan.length === 1 ? '' : 's'} ${how}; a plan must reach success (or solve() returns null)` };
  }
  const steps = distances.length - 1;
  const wrong = distances.map((d, i) => distanceProblem(d, steps - i, steps, i === steps)).find((p) => p !== null);
  if (wrong) return { followed: true, problem: wrong };
  if (probability === 0 && plan.length <= budget) {
    return { followed: true, problem: `optimalSuccessProbability(${budget}): returned 0 although solve() found a plan of ${plan.length} action${plan.length === 1 ? '' : 's'}` };
  }
  return { followed: true, problem: null };
}

function firstDifference(a: TraceEntry[], b: TraceEntry[], complete: boolean): { call: string; field: string; a: unknown; b: unknown } | null {
  for (let i = 0; i < (complete ? Math.max(a.length, b.length) : Math.min(a.length, b.length)); i++) {
    if (!a[i] || !b[i]) {
      const call = (a[i] ?? b[i]).call;
      return { call, field: 'the episode length', a: a.length - 1, b: b.length - 1 };
    }
    for (const key of Object.keys(a[i].fields)) {
      if (JSON.stringify(a[i].fields[key]) !== JSON.stringify(b[i].fields[key])) {
        return { call: a[i].call, field: key, a: a[i].fields[key], b: b[i].fields[key] };
      }
    }
  }
  return null;
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
