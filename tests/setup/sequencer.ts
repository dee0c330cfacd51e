// The order in which Vitest hands test files to its workers. Without a cache (a fresh clone,
// CI) Vitest starts the largest files first, by bytes: the longest file of the suite, a short
// source that trains a pretrained model for most of a minute, started halfway down the list, and a
// long file added today would start wherever its size put it and could run on alone at the end.
// Here the files run longest first by the seconds measured for them (test-durations.json, written
// by scripts/test-durations.ts), and a file not measured yet before all of them: a new file may
// be a long one, and a short one costs nothing up front.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import durations from './test-durations.json';

const SECONDS: Record<string, number> = durations.seconds;

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (file: TestSpecification) => SECONDS[relative(root, file.moduleId).split('\\').join('/')] ?? Infinity;
    // Ties (unmeasured files) keep Vitest's own order.
    const ordered = await super.sort(files);
    return ordered.map((file, index) => ({ file, index, seconds: seconds(file) })).sort((a, b) => b.seconds - a.seconds || a.index - b.index).map(({ file }) => file);
  }
}
