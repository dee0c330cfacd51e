// The independent readers in Python (TensorBoard's event files, pandas) need libraries that a
// pyenv or venv python3 on the PATH may lack while Debian's own has them from apt.
import { execFileSync } from 'node:child_process';

/** A python3 that imports `modules`: the one on PATH, else Debian's own; null when neither does. */
export function pythonWith(modules: string): string | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', `import ${modules}`], { stdio: 'ignore' });
      return python;
    } catch {
      // Not this one.
    }
  }
  return null;
}
