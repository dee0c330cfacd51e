import type { Command } from 'commander';
import { UserError } from './errors';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';

interface ExportModelFlags {
  out: string;
  merged?: boolean;
  dtype?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('export-model')
    .description("write a pretrained run's trained policy as a Hugging Face model folder (transformers, vLLM, PEFT load it)")
    .argument('<checkpoint>', 'run id or name (latest checkpoint), ckpt:<id>, or a checkpoint folder')
    .requiredOption('--out <folder>', 'a new (or empty) folder to write')
    .option('--merged', 'fold the LoRA adapters into the weights (default: base weights plus adapter/ in PEFT layout)')
    .option('--dtype <type>', "weights as f32 or bf16 (default: a BF16 base's own bf16 when the adapters are written beside it, else f32)")
    .option('--json', 'print JSON')
    .action(async (ref: string, flags: ExportModelFlags, command: Command) => {
      const dtype = flags.dtype?.toLowerCase();
      if (dtype !== undefined && dtype !== 'f32' && dtype !== 'bf16') throw new UserError(`--dtype expects f32 or bf16, got '${flags.dtype}'`);
      await withStore(command, async (store) => {
        const { exportModel } = await import('../services/model-export');
        const { releaseBackend } = await import('../../trainer-core/compute');
        try {
          const result = await exportModel(store, ref, flags.out, {
            merged: flags.merged === true,
            dtype: dtype === undefined ? undefined : dtype === 'bf16' ? 'BF16' : 'F32',
            log: (line) => process.stderr.write(`${line}\n`),
          });
          if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
          else process.stdout.write(`checkpoint ${result.checkpointId} (run ${result.runId}, iteration ${result.iteration}) written to ${result.out} as ${result.dtype}${result.merged ? ' (adapters merged)' : ''}\n`);
        } catch (error) {
          throw asTrainingUserError(error);
        } finally {
          await releaseBackend();
        }
      });
    });
}
