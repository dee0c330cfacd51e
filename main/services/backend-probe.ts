import type { BackendAvailabilityDto } from '../../preload/contract';
import type { TrainerLauncher } from '../trainer-host/trainer-process';

/**
 * Which backends can start, asked of a `turnlab backends --json` process: probing loads native
 * and GPU libraries that must not be loaded into the app itself. Asked once per app; a failed
 * probe is asked again next time.
 */
export function backendProber(launcher: TrainerLauncher): () => Promise<BackendAvailabilityDto[]> {
  let answer: Promise<BackendAvailabilityDto[]> | null = null;
  return () => {
    answer ??= probeOnce(launcher).catch((error: unknown) => {
      answer = null;
      throw error;
    });
    return answer;
  };
}

function probeOnce(launcher: TrainerLauncher): Promise<BackendAvailabilityDto[]> {
  const child = launcher(['backends', '--json']);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer | string) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer | string) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.onError(reject);
    child.onExit((code) => {
      // Dawn may print warnings on stdout; the answer is the last line.
      const line = out.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error('exit');
        resolve(JSON.parse(line) as BackendAvailabilityDto[]);
      } catch {
        const why = err.trim().split('\n').pop()?.replace(/^turnlab: /, '') ?? `exit code ${code}`;
        reject(new Error(`the backend probe failed: ${why}`));
      }
    });
  });
}
