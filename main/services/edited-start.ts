import { rmSync } from 'node:fs';
import { basename, dirname, sep } from 'node:path';

/**
 * A start from edited text that is refused leaves nothing behind: the file written for it is
 * removed, and the refusal names the text as the user knows it, not the temporary file.
 */
export async function withoutEditedFile<T>(path: string, name: string, started: Promise<T>): Promise<T> {
  try {
    return await started;
  } catch (error) {
    rmSync(path, { force: true });
    throw new Error(namingEditedText(path, name, error instanceof Error ? error.message : String(error)));
  }
}

/** A message about the file written for edited text, naming the text instead. */
export function namingEditedText(path: string, name: string, message: string): string {
  const named = message.split(path).join(name).split(basename(path)).join(name);
  // A file named relative to the text (a custom env's `module: ./env.ts`) was looked for beside
  // the saved copy, a folder the user never chose.
  const beside = named.includes(`${dirname(path)}${sep}`) ? `; a relative path in edited text is read from ${dirname(path)}, where the text is saved: give it as an absolute path` : '';
  return named + beside;
}
