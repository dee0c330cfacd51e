// The independent float64 implementation of the Hugging Face decoders (hf_reference.py, numpy).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./hf_reference.py', import.meta.url));

/** A test's skip note without numpy; the skip reporter reads it as NEEDS_NUMPY (tests/setup/requirements.ts). */
export const NUMPY_NOTE = 'python3 with numpy not found: the independent float64 reference cannot run';

let numpy: boolean | undefined;

export function hasNumpy(): boolean {
  if (numpy === undefined) {
    try {
      execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
      numpy = true;
    } catch {
      numpy = false;
    }
  }
  return numpy;
}

/** Logprob of every next token of each row, from the model folder `dir`. */
export function referenceLogprobs(dir: string, rows: number[][]): number[][] {
  return JSON.parse(execFileSync('python3', [script, dir, JSON.stringify(rows)], { encoding: 'utf8', maxBuffer: 1 << 24 })) as number[][];
}
