/**
 * Model weights <-> safetensors. The model config travels in the file's metadata, so a
 * checkpoint file alone rebuilds its model (policy, critic or reference alike).
 * Layout note for Python readers: weights are [in, out] (y = x @ W + b), the transpose of
 * torch.nn.Linear.weight.
 */
import type { NamedArray, SafetensorsContent } from './safetensors';
import { decodeSafetensors, encodeSafetensors, readSafetensorsFile, writeSafetensorsFile } from './safetensors';
import { Transformer, checkParameterArrays, resolveTransformerConfig, type ResolvedTransformerConfig, type TransformerConfig } from './transformer';

const CONFIG_KEY = 'turnlab.model_config';

export async function modelTensors(model: Transformer): Promise<Record<string, NamedArray>> {
  return model.toArrays();
}

export function modelMetadata(model: Transformer, extra: Record<string, string> = {}): Record<string, string> {
  return { format: 'pt', 'turnlab.layout': 'y = x @ W + b, weights [in, out]', ...extra, [CONFIG_KEY]: JSON.stringify(model.config) };
}

export async function encodeModel(model: Transformer, extra: Record<string, string> = {}): Promise<Buffer> {
  return encodeSafetensors(await modelTensors(model), modelMetadata(model, extra));
}

export async function saveModel(path: string, model: Transformer, extra: Record<string, string> = {}): Promise<void> {
  await writeSafetensorsFile(path, await modelTensors(model), modelMetadata(model, extra));
}

/** A TurnLab model file read and checked against the config in its metadata, before any tensor exists. */
export interface ModelArrays {
  config: ResolvedTransformerConfig;
  arrays: Record<string, { shape: number[]; data: Float32Array }>;
  /** Parameter names and shapes in the model's order (what the optimizer's moments must match). */
  shapes: Array<[string, number[]]>;
}

export function modelArraysFromContent(content: SafetensorsContent, source: string): ModelArrays {
  const text = content.metadata[CONFIG_KEY];
  if (!text) throw new Error(`${source} has no ${CONFIG_KEY} metadata: not a TurnLab model file`);
  const config = resolveTransformerConfig(JSON.parse(text) as TransformerConfig);
  const arrays: Record<string, { shape: number[]; data: Float32Array }> = {};
  for (const [name, entry] of Object.entries(content.tensors)) {
    if (!(entry.data instanceof Float32Array)) throw new Error(`${source}: parameter "${name}" must be F32`);
    arrays[name] = { shape: entry.shape, data: entry.data };
  }
  return { config, arrays, shapes: checkParameterArrays(config, arrays) };
}

export function decodeModelArrays(bytes: Uint8Array, source = 'model weights'): ModelArrays {
  return modelArraysFromContent(decodeSafetensors(bytes, source), source);
}

export function modelFromContent(content: SafetensorsContent, source: string): Transformer {
  const { config, arrays } = modelArraysFromContent(content, source);
  return Transformer.fromArrays(config, arrays);
}

export function decodeModel(bytes: Uint8Array, source = 'model weights'): Transformer {
  return modelFromContent(decodeSafetensors(bytes, source), source);
}

export async function loadModel(path: string): Promise<Transformer> {
  return modelFromContent(await readSafetensorsFile(path), path);
}
