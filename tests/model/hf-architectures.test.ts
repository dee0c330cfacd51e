// Adding a Hugging Face architecture is one descriptor registered by name: a toy variant
// registered from this file (Qwen3's per-head q/k norm with Qwen2's q/k/v biases) is parsed,
// built and run by the shared decoder, and equals a Qwen3 config that asks for the same options.
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { registerArchitecture, registeredArchitectures } from '../../trainer-core/model/hf/architectures';
import { HfModelError, parseHfConfig } from '../../trainer-core/model/hf/config';
import { HfDecoder, expectedShapes } from '../../trainer-core/model/hf/decoder';
import { LORA_MODULES } from '../../trainer-core/model/hf/lora';
import { forwardInputs, packRows } from '../../trainer-core/model/batch';
import { PRESETS, randomHfTensors } from '../../scripts/hf-random-model';

beforeAll(async () => {
  await selectBackend('wasm');
  registerArchitecture({
    name: 'ToyNormedBiasForCausalLM',
    blockOptions: () => ({ attentionBias: true, qkNorm: true }),
    loraTargets: LORA_MODULES,
  });
});

const toyJson = { ...PRESETS['tiny-qwen3'], architectures: ['ToyNormedBiasForCausalLM'], model_type: 'toy', vocab_size: 300 };

describe('the architecture registry', () => {
  it('lists a registered variant, and names it when refusing an unknown one', () => {
    expect(registeredArchitectures()).toEqual(['Qwen2ForCausalLM', 'Qwen3ForCausalLM', 'LlamaForCausalLM', 'ToyNormedBiasForCausalLM']);
    expect(() => parseHfConfig({ ...toyJson, architectures: ['MistralForCausalLM'] })).toThrow(HfModelError);
    expect(() => parseHfConfig({ ...toyJson, architectures: ['MistralForCausalLM'] })).toThrow(/TurnLab runs .*ToyNormedBiasForCausalLM/);
    expect(() => registerArchitecture({ name: 'Qwen2ForCausalLM', blockOptions: () => ({ attentionBias: false, qkNorm: false }), loraTargets: [] })).toThrow(/already registered/);
  });

  it("reads the variant's block options and weight names, and runs it through the shared decoder", () => {
    const toy = parseHfConfig(toyJson);
    expect([toy.architecture, toy.attentionBias, toy.qkNorm]).toEqual(['ToyNormedBiasForCausalLM', true, true]);
    const names = expectedShapes(toy).map(([name]) => name);
    expect(names).toContain('model.layers.1.self_attn.q_proj.bias');
    expect(names).toContain('model.layers.1.self_attn.k_norm.weight');

    // The same weights under Qwen3 with attention_bias: the same block, so the same logits.
    const qwen3Json = { ...toyJson, architectures: ['Qwen3ForCausalLM'], attention_bias: true };
    const tensors = randomHfTensors(toyJson, 7);
    const models = [HfDecoder.fromHfTensors(toy, tensors), HfDecoder.fromHfTensors(parseHfConfig(qwen3Json), tensors)];
    const [ours, qwen3] = models.map((model) =>
      tf.tidy(() => {
        const input = forwardInputs(packRows([[5, 17, 230, 9, 41]], 'right'));
        return Array.from(model.forward(input).logits!.dataSync());
      }),
    );
    expect(ours).toEqual(qwen3);
    expect(Math.max(...ours) - Math.min(...ours)).toBeGreaterThan(1);
    models.forEach((m) => m.dispose());
  });
});
