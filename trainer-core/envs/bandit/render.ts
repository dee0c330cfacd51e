import type { StateRender } from '../types';

/** The choice as the model reads it (arms in their shuffled order), or the payout once pulled. */
export function renderBandit(arms: readonly [string, string], pulled: string | null, reward: number): string {
  if (pulled !== null) return `${pulled}: ${reward} points`;
  const [a, b] = arms;
  return `There are 2 arms, named ${a} and ${b}. Choose one arm to pull: ${a} or ${b}.`;
}

/** The text, and the arms (and the pull and its payout) as fields for the replay view. */
export function banditStateRender(arms: readonly [string, string], pulled: string | null, reward: number): StateRender {
  const fields: Record<string, string | number | string[]> = { arms: [...arms] };
  if (pulled !== null) {
    fields.pulled = pulled;
    fields.reward = reward;
  }
  return { kind: 'text', text: renderBandit(arms, pulled, reward), fields };
}
