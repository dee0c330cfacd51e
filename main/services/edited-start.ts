import { rmSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * A start from edited text that is refused leaves nothing behind: the file written for it is
 * removed, and the refusal names the text as the user knows it, not the temporary file.
 */
export async function withoutEditedFile<T>(path: string, name: string, started: Promise<T>): Promise<T> {
  try {
    return await started;
  } catch (error) {
    rmSync(path, { force: true });
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(message.split(path).join(name).split(basename(path)).join(name));
  }
}
