/**
 * Opens a local Hugging Face model folder: config.json, the safetensors weights (one file or
 * shards), the tokenizer and its chat template. Nothing is downloaded.
 */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ChatTemplate } from './chat-template';
import { HfModelError, parseHfConfig, type HfDecoderConfig } from './config';
import { HfDecoder, type HfDecoderOptions } from './decoder';
import { noConfigError } from './folder-kind';
import { findInHubCache, looksLikeHubId } from './hub-cache';
import { HfTokenizer } from './tokenizer';
import { checkHfWeights } from './weight-headers';
import { readHfWeights } from './weights';

export interface HfModelFolder {
  dir: string;
  /** The Hub id the folder was found by in the Hugging Face cache, when it was. */
  hubId?: string;
  config: HfDecoderConfig;
  /** config.json as written, for exports. */
  configJson: Record<string, unknown>;
  tokenizer: HfTokenizer;
  template: ChatTemplate | null;
}

/** True when `path` is a Hugging Face model folder (has a config.json), or a Hub id the cache holds. */
export function isHfModelFolder(path: string): boolean {
  const dir = existsSync(path) || !looksLikeHubId(path) ? path : findInHubCache(path);
  if (typeof dir !== 'string') return dir.found && isHfModelFolder(dir.dir);
  return existsSync(join(dir, 'config.json')) && statSync(dir).isDirectory();
}

/** The folder `path` names: itself, or for a Hub id that is no folder here, its snapshot in the Hugging Face cache. */
export function resolveModelFolder(path: string): string {
  if (existsSync(path)) return path;
  if (!looksLikeHubId(path)) throw missingFolder(path);
  const lookup = findInHubCache(path);
  if (lookup.found) return lookup.dir;
  throw new HfModelError(`Model folder ${path} does not exist, and ${lookup.reason}; TurnLab does not download: \`hf download ${path}\` (huggingface_hub) puts it there, or give a folder`);
}

/** A path that names nothing, with what a shell would have done for it that TurnLab does not. */
function missingFolder(path: string): HfModelError {
  if (path === '~' || path.startsWith('~/')) {
    return new HfModelError(`Model folder ${path} does not exist: ~ is not expanded here; write the full path, ${join(homedir(), path.slice(1))}`);
  }
  if (!isAbsolute(path)) return new HfModelError(`Model folder ${path} does not exist (read as ${resolve(path)}, from the folder TurnLab runs in); give an absolute path`);
  return new HfModelError(`Model folder ${path} does not exist`);
}

/** The folder as a log line names it: a Hub id with the cache's snapshot it was read from. */
export function modelFolderName(folder: Pick<HfModelFolder, 'dir' | 'hubId'>): string {
  return folder.hubId === undefined ? folder.dir : `${folder.hubId} (${folder.dir})`;
}

/** Reads the folder's config, tokenizer and weight headers (cheap); the weights load with loadHfDecoder. */
export async function openHfModelFolder(path: string): Promise<HfModelFolder> {
  const dir = resolveModelFolder(path);
  const hubId = dir === path ? undefined : path;
  if (!statSync(dir).isDirectory()) throw new HfModelError(`Model folder ${dir} is a file, not a folder: give the folder that holds it, ${dirname(dir)}`);
  const configPath = join(dir, 'config.json');
  if (!existsSync(configPath)) throw noConfigError(dir);
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
  return { dir, hubId, config, configJson, tokenizer, template };
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
