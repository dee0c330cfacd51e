import type { StateRender } from '../types';
import type { CountdownInstance } from './generator';

/** The problem as the model reads it, with the verdict on its answer once there is one. */
export function renderCountdown(instance: CountdownInstance, feedback: string): string {
  const problem = `Target: ${instance.target}, nums: [${instance.nums.join(', ')}]`;
  return feedback ? `${problem}\n${feedback}` : problem;
}

/** The text, and target and numbers as fields for the replay view. */
export function countdownStateRender(instance: CountdownInstance, feedback: string): StateRender {
  return { kind: 'text', text: renderCountdown(instance, feedback), fields: { target: instance.target, nums: [...instance.nums] } };
}
