import type { RunModelDto } from '../../../preload/contract';

const count = (n: number) => n.toLocaleString('en-US');

function parameters(model: RunModelDto): string {
  // Null before the trainer starts, and for runs from before migration 0005 stored the count.
  return model.parameterCount === null ? 'parameter count not stored' : `${count(model.parameterCount)} parameters`;
}

/** What a run trains, in one line, the way the trainer's own log line says it. */
export function modelLine(model: RunModelDto): string {
  if (model.kind === 'scratch') {
    const layers = model.layers === null ? 'layers not stored' : `${model.layers} layer${model.layers === 1 ? '' : 's'}`;
    const width = model.dModel === null ? 'd_model not stored' : `d_model ${model.dModel}`;
    return `TurnLab transformer trained from scratch: ${layers}, ${width}, ${parameters(model)}`;
  }
  const architecture = model.architecture ?? 'architecture unknown (config.json not readable)';
  const trainable = model.trainableCount === null ? '' : `: ${count(model.trainableCount)} trainable`;
  const training = model.lora
    ? `LoRA rank ${model.lora.rank} alpha ${model.lora.alpha} on ${model.lora.targetModules.join(', ')}${trainable}`
    : 'full fine-tuning';
  return `${model.name}: ${architecture}, ${parameters(model)}, ${training}`;
}

/** Why a checkpoint of this run has no Hugging Face export; null when it has one. */
export function exportUnavailable(model: RunModelDto | null): string | null {
  if (model === null || model.kind === 'pretrained') return null;
  return 'Export as a Hugging Face model is for runs started from a pretrained model folder (actor_rollout_ref.model.path); this run trains TurnLab\'s own transformer from scratch, which has no Hugging Face form.';
}
