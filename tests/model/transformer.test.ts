import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { Adam } from '../../trainer-core/model/adam';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { MASKED, Transformer, type TransformerConfig } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';

const tiny: TransformerConfig = { vocabSize: 12, contextLength: 8, dModel: 8, nLayers: 1, nHeads: 2, valueHead: true };
const rows = [
  [1, 5, 7, 2, 9],
  [3, 4, 11, 0, 6, 8, 10],
];

beforeAll(async () => {
  await selectBackend('wasm');
});

/** Weighted sum of logprobs and values: every parameter influences it. */
function probeLoss(model: Transformer, seed: number): tf.Scalar {
  const scores = scoreTokens(model, rows, { logprobs: true, values: true, entropy: true });
  const rng = new Rng(seed);
  const shape = scores.logprobs!.shape;
  const w1 = tf.tensor2d(Array.from({ length: shape[0] * shape[1] }, () => rng.normal()), shape);
  const w2 = tf.tensor2d(Array.from({ length: shape[0] * shape[1] }, () => rng.normal()), shape);
  return scores.logprobs!.mul(w1).sum().add(scores.values!.mul(w2).sum()).add(scores.entropy!.sum()) as tf.Scalar;
}

describe('Transformer', () => {
  it('is deterministic per seed and differs across seeds', async () => {
    const a = Transformer.create(tiny, 3);
    const b = Transformer.create(tiny, 3);
    const c = Transformer.create(tiny, 4);
    const [wa, wb, wc] = await Promise.all([a, b, c].map((m) => m.parameter('layers.0.attn.qkv.weight').data()));
    expect(Array.from(wa)).toEqual(Array.from(wb));
    expect(Array.from(wa)).not.toEqual(Array.from(wc));
    [a, b, c].forEach((m) => m.dispose());
  });

  it('validates its config', () => {
    expect(() => Transformer.create({ ...tiny, nHeads: 3 }, 1)).toThrow(/divisible by nHeads/);
    expect(() => Transformer.create({ ...tiny, lmHead: false, valueHead: false }, 1)).toThrow(/lmHead, valueHead/);
    expect(() => Transformer.create({ ...tiny, dModel: 0 }, 1)).toThrow(/dModel must be a positive integer/);
  });

  it('gives a row the same scores whatever else is in the batch (padding is invisible)', () => {
    const model = Transformer.create(tiny, 1);
    const batched = tf.tidy(() => scoreTokens(model, rows, { values: true }).logprobs!.arraySync());
    const alone = tf.tidy(() => scoreTokens(model, [rows[0]]).logprobs!.arraySync());
    for (let t = 0; t < rows[0].length; t++) expect(batched[0][t]).toBeCloseTo(alone[0][t], 5);
    expect(batched[0].slice(rows[0].length).map(Math.abs)).toEqual([0, 0]);
    expect(Math.abs(batched[0][0])).toBe(0);
    model.dispose();
  });

  it('scores each document of a packed row exactly as it scores alone', () => {
    const model = Transformer.create(tiny, 1);
    const first = [1, 5, 7];
    const second = [3, 4, 11, 6];
    const packed = tf.tidy(() => {
      const scores = scoreTokens(model, [[...first, ...second]], { values: true, documents: [[0, 0, 0, 1, 1, 1, 1]] });
      return { logprobs: scores.logprobs!.arraySync()[0], values: scores.values!.arraySync()[0] };
    });
    const alone = tf.tidy(() => {
      const scores = scoreTokens(model, [first, second], { values: true });
      return { logprobs: scores.logprobs!.arraySync(), values: scores.values!.arraySync() };
    });
    // Column 0 of a document (its first token) has no prefix inside the document; it is never trained.
    for (let t = 1; t < first.length; t++) {
      expect(packed.logprobs[t]).toBeCloseTo(alone.logprobs[0][t], 5);
      expect(packed.values[t]).toBeCloseTo(alone.values[0][t], 5);
    }
    for (let t = 1; t < second.length; t++) {
      expect(packed.logprobs[first.length + t]).toBeCloseTo(alone.logprobs[1][t], 5);
      expect(packed.values[first.length + t]).toBeCloseTo(alone.values[1][t], 5);
    }
    // Without document ids the second part sees the first and scores differently.
    const joined = tf.tidy(() => scoreTokens(model, [[...first, ...second]]).logprobs!.arraySync()[0]);
    expect(Math.abs(joined[first.length + 2] - alone.logprobs[1][2])).toBeGreaterThan(1e-4);
    expect(() => tf.tidy(() => scoreTokens(model, [first], { documents: [[0, 1, 0]] }).logprobs!)).toThrow(/must not decrease/);
    model.dispose();
  });

  it('gives packed documents the same gradients as the documents scored as rows', async () => {
    const model = Transformer.create(tiny, 2);
    const first = [1, 5, 7];
    const second = [3, 4, 11, 6];
    const third = [2, 9];
    // Weights per token, so the loss reads every trained column (column 0 of a document never is).
    const weigh = (logprobs: tf.Tensor2D, weights: number[][]) => logprobs.mul(tf.tensor2d(weights)).sum() as tf.Scalar;
    const packed = tf.variableGrads(() => {
      const s = scoreTokens(model, [[...first, ...second], third], { documents: [[0, 0, 0, 1, 1, 1, 1], [0, 0]] });
      return weigh(s.logprobs!, [[0, 1, 2, 0, 3, 4, 5], [0, 6, 0, 0, 0, 0, 0]]);
    }, model.variables());
    const alone = tf.variableGrads(() => {
      const s = scoreTokens(model, [first, second, third]);
      return weigh(s.logprobs!, [[0, 1, 2, 0], [0, 3, 4, 5], [0, 6, 0, 0]]);
    }, model.variables());
    expect(await packed.value.data()).toBeCloseTo((await alone.value.data())[0], 5);
    for (const name of Object.keys(alone.grads)) {
      const a = await packed.grads[name].data();
      const b = await alone.grads[name].data();
      for (let i = 0; i < a.length; i++) expect(a[i]).toBeCloseTo(b[i], 5);
    }
    tf.dispose([packed.value, alone.value, ...Object.values(packed.grads), ...Object.values(alone.grads)]);
    model.dispose();
  });

  it('with rope, attends by offset: shifting every position alike changes nothing', () => {
    const shifted = (positionEncoding: 'learned' | 'rope', ropeBase?: number) => {
      const model = Transformer.create({ ...tiny, positionEncoding, ropeBase }, 4);
      // Queries and keys large enough that attention is far from uniform.
      const qkv = model.parameter('layers.0.attn.qkv.weight');
      qkv.assign(qkv.mul(100));
      const logits = (offset: number) =>
        tf.tidy(() => {
          const time = rows[1].length;
          const input = {
            tokens: tf.tensor2d([rows[1]], [1, time], 'int32'),
            positions: tf.tensor2d([Array.from({ length: time }, (_, t) => t + offset)], [1, time], 'int32'),
            bias: tf.tensor4d(Array.from({ length: time * time }, (_, i) => (i % time > Math.floor(i / time) ? MASKED : 0)), [1, 1, time, time]),
          };
          return Array.from(model.forward(input).logits!.dataSync());
        });
      const [at0, at1] = [logits(0), logits(1)];
      const names = model.namedVariables().map(([name]) => name);
      model.dispose();
      return { difference: Math.max(...at0.map((v, i) => Math.abs(v - at1[i]))), names, at0 };
    };
    const rope = shifted('rope');
    expect(rope.difference).toBeLessThan(1e-4);
    expect(rope.names).not.toContain('pos_emb');
    expect(shifted('learned').difference).toBeGreaterThan(1e-3);
    expect(() => Transformer.create({ ...tiny, nHeads: 8, positionEncoding: 'rope' }, 1)).toThrow(/even head width/);
    // Another base turns the same weights by other angles, and still depends on offsets only.
    const smallBase = shifted('rope', 30);
    expect(smallBase.difference).toBeLessThan(1e-4);
    expect(Math.max(...smallBase.at0.map((v, i) => Math.abs(v - rope.at0[i])))).toBeGreaterThan(1e-4);
    expect(() => Transformer.create({ ...tiny, positionEncoding: 'rope', ropeBase: 1 }, 1)).toThrow(/ropeBase must be greater than 1/);
  });

  it('rejects sequences longer than the context', () => {
    const model = Transformer.create(tiny, 1);
    expect(() => tf.tidy(() => scoreTokens(model, [[1, 2, 3, 4, 5, 6, 7, 8, 9]]).logprobs!)).toThrow(/exceeds the model's context length 8/);
    model.dispose();
  });

  it('supports a separate critic (value head only) and an untied LM head', () => {
    const critic = Transformer.create({ ...tiny, lmHead: false, valueHead: true }, 2);
    const values = tf.tidy(() => scoreTokens(critic, rows, { values: true }).values!.arraySync());
    expect(values[1]).toHaveLength(7);
    expect(() => tf.tidy(() => scoreTokens(critic, rows, { logprobs: true }).logprobs!)).toThrow(/no LM head/);
    const untied = Transformer.create({ ...tiny, tieEmbeddings: false }, 2);
    expect(untied.parameterNames).toContain('lm_head.weight');
    critic.dispose();
    untied.dispose();
  });

  it.each(['learned', 'rope'] as const)('has gradients that match central differences (%s positions)', async (positionEncoding) => {
    const model = Transformer.create({ ...tiny, positionEncoding }, 11);
    const { grads } = tf.variableGrads(() => probeLoss(model, 5), model.variables());
    const named = model.nameGradients(grads);
    const checks: Array<[string, number]> = [
      ['tok_emb', 9],
      ['layers.0.ln1.gain', 2],
      ['layers.0.attn.qkv.weight', 17],
      ['layers.0.attn.qkv.weight', 60],
      ['layers.0.attn.out.weight', 5],
      ['layers.0.mlp.up.weight', 30],
      ['layers.0.mlp.down.weight', 12],
      ['ln_f.bias', 4],
      ['value_head.weight', 6],
    ];
    // Rows of 5 and 7 tokens in a context of 8: position 6 is the last one read, 7 none (its gradient is 0).
    if (positionEncoding === 'learned') checks.push(['pos_emb', 3], ['pos_emb', 6 * tiny.dModel + 2], ['pos_emb', 7 * tiny.dModel + 2]);
    const eps = 5e-3;
    for (const [name, index] of checks) {
      const variable = model.parameter(name);
      const analytic = (await named[name].data())[index];
      const original = (await variable.data()) as Float32Array;
      const at = (delta: number) => {
        const changed = original.slice();
        changed[index] += delta;
        tf.tidy(() => variable.assign(tf.tensor(changed, variable.shape)));
        return tf.tidy(() => probeLoss(model, 5).dataSync()[0]);
      };
      const numeric = (at(eps) - at(-eps)) / (2 * eps);
      tf.tidy(() => variable.assign(tf.tensor(original, variable.shape)));
      // float32 loss of size ~10: rounding noise ~1e-6 / 1e-2 plus O(eps^2) curvature (rope bends more: eps 1e-2 was too coarse).
      expect(Math.abs(numeric - analytic), `${name}[${index}]: analytic ${analytic}, numeric ${numeric}`).toBeLessThan(
        2e-3 + 2e-2 * Math.abs(analytic),
      );
    }
    tf.dispose(Object.values(grads));
    model.dispose();
  });

  it('does not leak tensors across forward, gradient and Adam steps', () => {
    const model = Transformer.create(tiny, 1);
    const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-3, weightDecay: 0.01 });
    const step = () => {
      tf.tidy(() => {
        scoreTokens(model, rows, { values: true, entropy: true });
      });
      const { value, grads } = tf.variableGrads(() => probeLoss(model, 1), model.variables());
      optimizer.apply(model.nameGradients(grads));
      tf.dispose([value, ...Object.values(grads)]);
    };
    step();
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) step();
    expect(tf.memory().numTensors).toBe(before);
    optimizer.dispose();
    model.dispose();
  });

  it('clones weights for a reference model', async () => {
    const model = Transformer.create(tiny, 1);
    const reference = model.clone();
    const a = tf.tidy(() => scoreTokens(model, rows).logprobs!.arraySync());
    const b = tf.tidy(() => scoreTokens(reference, rows).logprobs!.arraySync());
    expect(b).toEqual(a);
    model.dispose();
    // The clone owns its own variables.
    expect(tf.tidy(() => scoreTokens(reference, rows).logprobs!.arraySync())).toEqual(a);
    reference.dispose();
  });

  it('starts a critic from a policy trunk: shared weights copied, its value head its own', async () => {
    const policy = Transformer.create({ ...tiny, tieEmbeddings: false, valueHead: false }, 1);
    const critic = Transformer.create({ ...tiny, lmHead: false, valueHead: true }, 2);
    const headBefore = Array.from(await critic.parameter('value_head.weight').data());
    critic.copyTrunkFrom(policy);
    for (const name of critic.parameterNames.filter((n) => !n.startsWith('value_head'))) {
      expect(Array.from(await critic.parameter(name).data()), name).toEqual(Array.from(await policy.parameter(name).data()));
    }
    expect(Array.from(await critic.parameter('value_head.weight').data())).toEqual(headBefore);
    const wider = Transformer.create({ ...tiny, dModel: 16, lmHead: false, valueHead: true }, 2);
    expect(() => wider.copyTrunkFrom(policy)).toThrow(/Cannot copy "tok_emb": shape 12x8 into 12x16/);
    [policy, critic, wider].forEach((m) => m.dispose());
  });
});
