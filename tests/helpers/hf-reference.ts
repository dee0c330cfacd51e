// The independent float64 implementation of the Hugging Face decoders (hf_reference.py, numpy).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./hf_reference.py', import.meta.url));

export function hasNumpy(): boolean {
  try {
    execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Logprob of every next token of each row, from the model folder `dir`. */
export function referenceLogprobs(dir: string, rows: number[][]): number[][] {
  return JSON.parse(execFileSync('python3', [script, dir, JSON.stringify(rows)], { encoding: 'utf8', maxBuffer: 1 << 24 })) as number[][];
}
