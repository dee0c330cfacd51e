/**
 * Opens a local Hugging Face model folder: config.json, the safetensors weights (one file or
 * shards), the tokenizer and its chat template. Nothing is downloaded.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatTemplate } from './chat-template';
import { HfModelError, parseHfConfig, type HfDecoderConfig } from './config';
import { HfDecoder, type HfDecoderOptions } from './decoder';
import { HfTokenizer } from './tokenizer';
import { checkHfWeights } from './weight-headers';
import { readHfWeights } from './weights';

export interface HfModelFolder {
  dir: string;
  config: HfDecoderConfig;
  /** config.json as written, for exports. */
  configJson: Record<string, unknown>;
  tokenizer: HfTokenizer;
  template: ChatTemplate | null;
}

/** True when `dir` looks like a Hugging Face model folder (has a config.json). */
export function isHfModelFolder(dir: string): boolean {
  return existsSync(join(dir, 'config.json')) && statSync(dir).isDirectory();
}

/** Reads the folder's config, tokenizer and weight headers (cheap); the weights load with loadHfDecoder. */
export async function openHfModelFolder(dir: string): Promise<HfModelFolder> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new HfModelError(`Model folder ${dir} does not exist`);
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath)) throw new HfModelError(`${dir} has no config.json: not a Hugging Face model folder`);
  let configJson: Record<string, unknown>;
  try {
    configJson = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new HfModelError(`${configPath} is not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (configJson === null || typeof configJson !== 'object' || Array.isArray(configJson)) throw new HfModelError(`${configPath} is not a JSON object`);
  const config = parseHfConfig(configJson, configPath);
  // The weight files' headers against the config: a mismatch or a cut-short file is refused now,
  // before a run exists, not as a shape error halfway through loading.
  checkHfWeights(dir, config, configJson);
  if (!existsSync(join(dir, 'tokenizer.json'))) throw new HfModelError(`${dir} has no tokenizer.json; copy the model's tokenizer files into the folder`);
  const tokenizer = await HfTokenizer.load(dir, config.vocabSize);
  const template = tokenizer.chatTemplate ? new ChatTemplate(tokenizer.chatTemplate) : null;
  return { dir, config, configJson, tokenizer, template };
}

export async function loadHfDecoder(folder: HfModelFolder, options: HfDecoderOptions = {}): Promise<HfDecoder> {
  return (await hfDecoderBuilder(folder.dir, folder.config))(options);
}

/**
 * Reads a folder's weights once and returns a builder of decoders over them: a run's policy,
 * critic and reference come from one read, on the main thread and on each worker thread alike
 * (so a worker's model is the main thread's, built the same way).
 */
export async function hfDecoderBuilder(dir: string, config: HfDecoderConfig): Promise<(options: HfDecoderOptions) => HfDecoder> {
  const tensors = await readHfWeights(dir);
  return (options) => HfDecoder.fromHfTensors(config, tensors, options);
}
