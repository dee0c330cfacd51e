import type { ExportModelRequest, ModelExportDto } from '../../preload/contract';
import type { TrainerLauncher } from '../trainer-host/trainer-process';
import { runJsonCommand } from './cli-child';

/** `turnlab export-model ckpt:<id> --out DIR --json` for the workbench, in a child process. */
export function exportModelArgs(dataDir: string, request: ExportModelRequest & { out: string }): string[] {
  const args = ['--data-dir', dataDir, 'export-model', `ckpt:${request.checkpointId}`, '--out', request.out, '--dtype', request.dtype.toLowerCase(), '--json'];
  if (request.merged) args.push('--merged');
  return args;
}

function parseResult(json: unknown): ModelExportDto {
  const parsed = json as Partial<ModelExportDto>;
  if (typeof parsed.out !== 'string' || typeof parsed.iteration !== 'number' || typeof parsed.checkpointId !== 'number') {
    throw new Error('turnlab export-model printed JSON without out, iteration and checkpointId');
  }
  return parsed as ModelExportDto;
}

export function exportModelInChildProcess(
  launch: TrainerLauncher,
  dataDir: string,
  request: ExportModelRequest & { out: string },
): Promise<ModelExportDto> {
  return runJsonCommand(launch, exportModelArgs(dataDir, request), parseResult);
}
