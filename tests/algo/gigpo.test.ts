import { describe, expect, it } from 'vitest';
import { computeAdvantages } from '../../trainer-core/algo/estimator-registry';
import { parseRunConfig } from '../../trainer-core/config';
import { computeGigpo } from '../../trainer-core/algo/gigpo';
import { expectAllClose, f32 } from './helpers';

// Group 'g': three episodes of two-token turns. Episodes 0 and 1 play S then A; episode 0 wins
// (reward 1 at its last token), episode 1 does not. Episode 2 plays S then wins at once.
// Episode 3 is alone in group 'h' and plays S too.
const batch = {
  rows: 4,
  cols: 4,
  rewards: f32([0, 0, 0, 1, /**/ 0, 0, 0, 0, /**/ 0, 1, 0, 0, /**/ 0, 2, 0, 0]),
  mask: f32([1, 1, 1, 1, /**/ 1, 1, 1, 1, /**/ 1, 1, 0, 0, /**/ 1, 1, 0, 0]),
  groupIds: ['g', 'g', 'g', 'h'],
  turnEnds: [[1, 3], [1, 3], [1], [1]],
  stateKeys: [['S', 'A'], ['S', 'A'], ['S'], ['S']],
};

describe('computeGigpo', () => {
  it('adds to the episode advantage a step advantage among the turns of a group played from one state', () => {
    const { advantages, returns } = computeGigpo({ ...batch, gamma: 0.5 });
    // Episodes of g score 1, 0, 1: mean 2/3, std sqrt(1/3).
    const win = 1 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    const loss = -2 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    // Step returns with gamma 0.5: state S 0.5, 0, 1 (mean 0.5, std 0.5); state A 1, 0 (std sqrt(0.5)).
    const s = 0.5 / (0.5 + 1e-6);
    const a = 0.5 / (Math.sqrt(0.5) + 1e-6);
    // Group h has one episode and one turn from S. Episode level: mean 0 and std 1, as verl's GRPO.
    // Step level: a step group of one is its own mean (verl-agent), so its step advantage is 0.
    const alone = 2 / (1 + 1e-6);
    expectAllClose(
      advantages,
      [win, win, win + a, win + a, /**/ loss - s, loss - s, loss - a, loss - a, /**/ win + s, win + s, 0, 0, /**/ alone, alone, 0, 0],
      1e-5,
    );
    expectAllClose(returns, advantages);
  });

  it('weights the step advantage and can leave out the std (mean_norm)', () => {
    const { advantages } = computeGigpo({ ...batch, gamma: 0.5, stepWeight: 2, normByStd: false });
    // Episode: 1/3, -2/3, 1/3 (group g), 2 (h). Steps: S 0, -0.5, 0.5 and 0 (h alone); A 0.5, -0.5.
    expectAllClose(advantages, [1 / 3, 1 / 3, 4 / 3, 4 / 3, /**/ -5 / 3, -5 / 3, -5 / 3, -5 / 3, /**/ 4 / 3, 4 / 3, 0, 0, /**/ 2, 2, 0, 0]);
  });

  it('can leave out the episode advantage, so a turn is judged only against its state\'s turns', () => {
    const { advantages } = computeGigpo({ ...batch, gamma: 0.5, episodeWeight: 0, normByStd: false });
    // Steps alone: S 0, -0.5, 0.5 and 0 (h alone); A 0.5, -0.5. Episode 1's first move from S is
    // blamed by -0.5 only (the same move won from S in episode 0), not by its episode's -2/3 too.
    expectAllClose(advantages, [0, 0, 0.5, 0.5, /**/ -0.5, -0.5, -0.5, -0.5, /**/ 0.5, 0.5, 0, 0, /**/ 0, 0, 0, 0]);
  });

  it('gives a state seen once in its group step advantage 0 (verl-agent: its own value is the mean)', () => {
    // One episode, one turn, reward 1: the episode advantage is 1 (a group of one: mean 0, std 1
    // as GRPO) and the step advantage 0, so mean_norm gives 1 (verl-agent), not 2.
    const single = { rows: 1, cols: 2, rewards: f32([0, 1]), mask: f32([1, 1]), groupIds: ['g'], turnEnds: [[1]], stateKeys: [['S']] };
    expectAllClose(computeGigpo({ ...single, normByStd: false }).advantages, [1, 1]);
    expectAllClose(computeGigpo(single).advantages, [1 / (1 + 1e-6), 1 / (1 + 1e-6)], 1e-6);
    // Two turns from different states, each alone: no step signal on either turn, only the episode's.
    const long = { rows: 1, cols: 4, rewards: f32([0, 0, 0, 1]), mask: f32([1, 1, 1, 1]), groupIds: ['g'], turnEnds: [[1, 3]], stateKeys: [['S', 'A']] };
    expectAllClose(computeGigpo({ ...long, gamma: 0.5, normByStd: false }).advantages, [1, 1, 1, 1]);
  });

  it('is reachable as adv_estimator gigpo, and says what it needs', () => {
    const algorithm = { ...parseRunConfig({}, 'defaults').algorithm, adv_estimator: 'gigpo', gamma: 0.5 };
    const viaConfig = computeAdvantages(batch, algorithm);
    expectAllClose(viaConfig.advantages, computeGigpo({ ...batch, gamma: 0.5 }).advantages);
    expect(() => computeAdvantages({ ...batch, stateKeys: undefined }, algorithm)).toThrow(/stateKeys/);
    expect(() => computeGigpo({ ...batch, stateKeys: [['S'], ['S', 'A'], ['S'], ['S']] })).toThrow(/stateKeys\[0\] has 1 keys for 2 turns/);
    expect(() => computeGigpo({ ...batch, gamma: 1.5 })).toThrow(/gamma/);
  });
});
