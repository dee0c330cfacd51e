/**
 * Runs scripts/torch-ppo-step.py (the same model and PPO step in PyTorch) when Debian's
 * python3-torch is installed; `bash scripts/install-torch.sh` installs it. The suite never needs it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TransformerConfig } from '../../trainer-core/model/transformer';
import { PPO_STEP } from './ppo-step';

const SCRIPT = fileURLToPath(new URL('../../scripts/torch-ppo-step.py', import.meta.url));

export type TorchStep = { tokensPerSecond: number; version: string } | { missing: string };

/** Debian's python3-torch lives under /usr/bin/python3, which a pyenv or venv python3 on PATH can hide. */
const PYTHONS = ['/usr/bin/python3', 'python3'];

export function torchStepTokensPerSecond(config: TransformerConfig, threads = 1): TorchStep {
  const args = [SCRIPT, '--rows', PPO_STEP.rows, '--length', PPO_STEP.length, '--steps', PPO_STEP.steps, '--threads', threads];
  args.push('--vocab', config.vocabSize, '--context', config.contextLength, '--d-model', config.dModel, '--layers', config.nLayers, '--heads', config.nHeads);
  let why = 'python3 did not start';
  for (const python of PYTHONS) {
    const result = spawnSync(python, args.map(String), { encoding: 'utf8' });
    if (result.error) continue;
    if (result.status !== 0) {
      const stderr = result.stderr ?? '';
      why = /No module named 'torch'/.test(stderr) ? 'python3-torch is not installed (bash scripts/install-torch.sh)' : (stderr.trim().split('\n').pop() ?? `exit ${result.status}`);
      continue;
    }
    const line = JSON.parse(result.stdout.trim().split('\n').pop() as string) as { tokens_per_second: number; torch: string };
    return { tokensPerSecond: line.tokens_per_second, version: line.torch };
  }
  return { missing: why };
}
