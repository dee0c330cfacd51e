import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Transformer, type PositionEncoding } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';

beforeAll(async () => {
  await selectBackend('wasm');
});

/** Rows that start with the same 20 tokens (a system prompt), then differ in content and length. */
function rowsWithSharedPrefix(rng: Rng): number[][] {
  const prefix = Array.from({ length: 20 }, () => 2 + rng.int(28));
  return [5, 1, 12, 8].map((extra) => [...prefix, ...Array.from({ length: extra }, () => 2 + rng.int(28))]);
}

function sharpModel(positionEncoding: PositionEncoding): Transformer {
  const model = Transformer.create({ vocabSize: 30, contextLength: 64, dModel: 16, nLayers: 2, nHeads: 2, valueHead: true, positionEncoding }, 8);
  // Fresh weights attend almost uniformly; sharper ones make a wrong key or position show.
  for (const [name, variable] of model.namedVariables()) {
    if (/weight|emb/.test(name)) variable.assign(tf.tidy(() => variable.mul(10)));
  }
  return model;
}

describe.each(['learned', 'rope'] as PositionEncoding[])('scoring with the shared prefix encoded once (%s positions)', (positionEncoding) => {
  it('gives the same logprobs, entropies, values and gradients as encoding every row', () => {
    const model = sharpModel(positionEncoding);
    const rows = rowsWithSharedPrefix(new Rng(1));
    const weights = tf.randomUniform([4, 32], -1, 1, 'float32', 3);
    const run = (sharePrefix: boolean) =>
      tf.tidy(() => {
        const { value, grads } = tf.variableGrads(() => {
          const s = scoreTokens(model, rows, { logprobs: true, entropy: true, values: true, sharePrefix });
          const w = weights.slice([0, 0], [4, s.logprobs!.shape[1]]);
          return s.logprobs!.mul(w).sum().add(s.entropy!.mul(w).sum()).add(s.values!.mul(w).sum()) as tf.Scalar;
        }, model.variables());
        const s = scoreTokens(model, rows, { logprobs: true, entropy: true, values: true, sharePrefix });
        return {
          loss: value.arraySync(),
          scores: [s.logprobs!, s.entropy!, s.values!].map((x) => x.arraySync()),
          grads: model.variables().map((v) => Array.from(grads[v.name].dataSync())),
        };
      });
    const shared = run(true);
    const alone = run(false);
    expect(Math.abs(shared.loss - alone.loss)).toBeLessThan(1e-3);
    shared.scores.forEach((score, k) => score.forEach((row, b) => row.forEach((x, t) => expect(Math.abs(x - alone.scores[k][b][t])).toBeLessThan(1e-4))));
    shared.grads.forEach((g, i) => {
      const scale = Math.max(1, ...alone.grads[i].map(Math.abs));
      g.forEach((x, j) => expect(Math.abs(x - alone.grads[i][j]) / scale).toBeLessThan(1e-4));
    });
    weights.dispose();
    model.dispose();
  });
});
