// The Run view's model line and the Checkpoints view's reason for offering no HF export.
import { describe, expect, it } from 'vitest';
import { exportUnavailable, modelLine } from '../../renderer/src/run/model-line';

const qwen = {
  kind: 'pretrained' as const,
  path: '/models/Qwen2.5-0.5B-Instruct',
  name: 'Qwen2.5-0.5B-Instruct',
  architecture: 'Qwen2ForCausalLM',
  parameterCount: 494_032_768,
  trainableCount: 540_672,
  lora: { rank: 8, alpha: 16, targetModules: ['q_proj', 'v_proj'] },
};

describe('the model line', () => {
  it('names a pretrained folder, its architecture, size and LoRA settings, or full fine-tuning', () => {
    expect(modelLine(qwen)).toBe('Qwen2.5-0.5B-Instruct: Qwen2ForCausalLM, 494,032,768 parameters, LoRA rank 8 alpha 16 on q_proj, v_proj: 540,672 trainable');
    expect(modelLine({ ...qwen, lora: null, trainableCount: null })).toBe('Qwen2.5-0.5B-Instruct: Qwen2ForCausalLM, 494,032,768 parameters, full fine-tuning');
  });

  it('says what it cannot know: a count not stored, a folder moved away', () => {
    expect(modelLine({ ...qwen, parameterCount: null, trainableCount: null, architecture: null })).toBe(
      'Qwen2.5-0.5B-Instruct: architecture unknown (config.json not readable), parameter count not stored, LoRA rank 8 alpha 16 on q_proj, v_proj',
    );
  });

  it('gives a from-scratch transformer its size', () => {
    const scratch = { kind: 'scratch' as const, layers: 2, dModel: 64, parameterCount: 120_576 };
    expect(modelLine(scratch)).toBe('TurnLab transformer trained from scratch: 2 layers, d_model 64, 120,576 parameters');
    expect(modelLine({ ...scratch, layers: 1 })).toMatch(/: 1 layer, d_model/);
    expect(modelLine({ ...scratch, layers: null, dModel: null, parameterCount: null })).toBe(
      'TurnLab transformer trained from scratch: layers not stored, d_model not stored, parameter count not stored',
    );
    expect(exportUnavailable(scratch)).toMatch(/no Hugging Face form/);
    expect(exportUnavailable(qwen)).toBeNull();
    expect(exportUnavailable(null)).toBeNull();
  });
});
