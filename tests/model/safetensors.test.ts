import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { Adam } from '../../trainer-core/model/adam';
import { decodeSafetensors, encodeSafetensors, readSafetensorsFile, writeSafetensorsFile } from '../../trainer-core/model/safetensors';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Transformer } from '../../trainer-core/model/transformer';
import { decodeModel, encodeModel, loadModel, saveModel } from '../../trainer-core/model/weights';

beforeAll(async () => {
  await selectBackend('cpu');
});

describe('safetensors', () => {
  it('writes the documented layout: u64 LE header size, JSON header, aligned data', () => {
    const bytes = encodeSafetensors(
      { b: { shape: [2], data: Float32Array.from([1.5, -2]) }, a: { shape: [1, 1], data: Int32Array.from([7]) } },
      { note: 'hi' },
    );
    const headerLength = Number(bytes.readBigUInt64LE(0));
    expect((8 + headerLength) % 8).toBe(0);
    const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
    expect(header.__metadata__).toEqual({ note: 'hi' });
    expect(header.a).toEqual({ dtype: 'I32', shape: [1, 1], data_offsets: [0, 4] });
    expect(header.b).toEqual({ dtype: 'F32', shape: [2], data_offsets: [4, 12] });
    expect(bytes.length).toBe(8 + headerLength + 12);
    expect(bytes.readFloatLE(8 + headerLength + 4)).toBe(1.5);
    const back = decodeSafetensors(bytes);
    expect(Array.from(back.tensors.b.data)).toEqual([1.5, -2]);
    expect(back.tensors.a.data).toBeInstanceOf(Int32Array);
  });

  it('rejects damaged files and unsupported dtypes with the tensor named', () => {
    expect(() => decodeSafetensors(Buffer.from([1, 2, 3]))).toThrow(/too short/);
    const header = Buffer.from(JSON.stringify({ w: { dtype: 'BF16', shape: [1], data_offsets: [0, 2] } }));
    const size = Buffer.alloc(8);
    size.writeBigUInt64LE(BigInt(header.length));
    expect(() => decodeSafetensors(Buffer.concat([size, header, Buffer.alloc(2)]))).toThrow(/"w" is BF16/);
    expect(() => encodeSafetensors({ w: { shape: [3], data: new Float32Array(2) } })).toThrow(/needs 3/);
  });

  it('round-trips a model (config in the metadata) to identical outputs, via bytes and files', async () => {
    const model = Transformer.create({ vocabSize: 16, contextLength: 8, dModel: 8, nLayers: 1, nHeads: 2, valueHead: true }, 5);
    const copy = decodeModel(await encodeModel(model, { step: '3' }));
    const rows = [[1, 2, 3, 4]];
    const score = (m: Transformer) => tf.tidy(() => scoreTokens(m, rows, { values: true }).values!.arraySync());
    expect(score(copy)).toEqual(score(model));
    expect(copy.config).toEqual(model.config);

    const dir = mkdtempSync(join(tmpdir(), 'turnlab-st-'));
    await saveModel(join(dir, 'policy.safetensors'), model);
    const loaded = await loadModel(join(dir, 'policy.safetensors'));
    expect(score(loaded)).toEqual(score(model));
    expect(readFileSync(join(dir, 'policy.safetensors')).subarray(8, 9).toString()).toBe('{');
    [model, copy, loaded].forEach((m) => m.dispose());
  });

  it('saves and restores Adam moments so updates continue identically', async () => {
    const config = { vocabSize: 16, contextLength: 8, dModel: 8, nLayers: 1, nHeads: 2 };
    const rows = [[1, 2, 3, 4, 5]];
    const lossStep = (m: Transformer, opt: Adam) => {
      const { value, grads } = tf.variableGrads(() => scoreTokens(m, rows).logprobs!.sum().neg() as tf.Scalar, m.variables());
      opt.apply(m.nameGradients(grads));
      tf.dispose([value, ...Object.values(grads)]);
    };
    const a = Transformer.create(config, 1);
    const optA = new Adam(a.namedVariables(), { learningRate: 0.01 });
    lossStep(a, optA);
    const dir = mkdtempSync(join(tmpdir(), 'turnlab-adam-'));
    const state = await optA.state();
    await writeSafetensorsFile(join(dir, 'optimizer.safetensors'), state.tensors, { step: String(state.step) });
    const b = decodeModel(await encodeModel(a));
    const optB = new Adam(b.namedVariables(), { learningRate: 0.01 });
    const file = await readSafetensorsFile(join(dir, 'optimizer.safetensors'));
    optB.loadState(file.tensors, Number(file.metadata.step));
    lossStep(a, optA);
    lossStep(b, optB);
    expect(Array.from(await b.parameter('tok_emb').data())).toEqual(Array.from(await a.parameter('tok_emb').data()));
    expect(() => optB.loadState({}, 1)).toThrow(/lacks "tok_emb.m"/);
    [optA, optB].forEach((o) => o.dispose());
    [a, b].forEach((m) => m.dispose());
  });
});
