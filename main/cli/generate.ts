import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UserError } from './errors';
import { wholeNumber } from './whole-number';
import type { HfDecoder, HfModelFolder } from '../../trainer-core';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';

interface GenerateFlags {
  model: string;
  prompt: string;
  chat?: boolean;
  maxNewTokens: string;
  greedy?: boolean;
  temperature?: string;
  seed: string;
  backend: string;
  json?: boolean;
}

function nonNegativeNumber(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) throw new UserError(`${flag} expects a non-negative number, got '${text}'`);
  return value;
}

export function register(program: Command): void {
  program
    .command('generate')
    .description('continue a prompt with a pretrained model folder (Hugging Face layout); checks that a model loads right')
    .requiredOption('--model <folder|run|ckpt:ID>', "a Hugging Face model folder (config.json, safetensors, tokenizer.json) or Hub id in the local cache (Qwen/Qwen2.5-0.5B-Instruct), or a pretrained run's checkpoint (its trained adapters on its base model)")
    .requiredOption('--prompt <text>', 'the prompt text')
    .option('--chat', "render the prompt as a user message with the model's chat template")
    .option('--max-new-tokens <n>', 'tokens to generate at most', '64')
    .option('--greedy', 'argmax decoding')
    .option('--temperature <t>', 'sampling temperature (default 1)')
    .option('--seed <n>', 'sampling seed', '0')
    .option('--backend <name>', 'auto, tensorflow, webgpu, wasm or cpu', 'auto')
    .option('--json', 'print {prompt_ids, output_ids, logprobs, text}; logprobs at temperature 1')
    .action(async (flags: GenerateFlags, command: Command) => {
      if (flags.greedy && flags.temperature !== undefined) throw new UserError('give --greedy or --temperature, not both');
      const maxNewTokens = wholeNumber('--max-new-tokens', flags.maxNewTokens, 1);
      const temperature = flags.temperature === undefined ? 1 : nonNegativeNumber('--temperature', flags.temperature);
      const seed = wholeNumber('--seed', flags.seed, 0);
      const { selectBackend, releaseBackend, isHfModelFolder, looksLikeHubId, openHfModelFolder, loadHfDecoder, generate } = await import('../../trainer-core/compute');
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const run = async (folder: HfModelFolder, model: HfDecoder) => {
        log(`loaded ${flags.model}: ${model.parameterSummary()}`);
        const result = await generate(folder, model, { prompt: flags.prompt, chat: flags.chat, maxNewTokens, temperature, greedy: flags.greedy, seed });
        if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
        else process.stdout.write(`${result.text}\n`);
      };
      try {
        // A folder that is not a checkpoint (no state.json) is read as a model folder, so a
        // wrong one is named as such rather than as an unknown run; so is a Hub id (`org/name`),
        // found in the Hugging Face cache or refused with the command that fetches it.
        const modelFolder = isHfModelFolder(flags.model) || looksLikeHubId(flags.model) || (existsSync(flags.model) && !existsSync(join(flags.model, 'state.json')));
        if (modelFolder) {
          const folder = await openHfModelFolder(flags.model);
          await selectBackend(flags.backend as never, log);
          // Nothing trains here: a 16-bit checkpoint stays 16-bit where the backend can.
          const model = await loadHfDecoder(folder, { frozen: true });
          try {
            await run(folder, model);
          } finally {
            model.dispose();
          }
        } else {
          await selectBackend(flags.backend as never, log);
          await withStore(command, async (store) => {
            const { resolveFinishedCheckpoint } = await import('../services/checkpoint-refs');
            const { openCheckpointPolicy } = await import('../../trainer-core/compute');
            const { resolve } = await import('node:path');
            const models = await openCheckpointPolicy(resolve(store.dataDir, resolveFinishedCheckpoint(store, flags.model, 'generate with').path));
            try {
              await run(models.folder, models.policy);
            } finally {
              models.dispose();
            }
          });
        }
      } catch (error) {
        throw asTrainingUserError(error);
      } finally {
        await releaseBackend();
      }
    });
}
