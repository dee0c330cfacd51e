// A Vitest reporter beside the default one: after the run, one line for each suite that
// skipped tests, saying what the machine lacks and the command that installs it.
import { relative, resolve } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { requirementOf, skipLine, type SkippedSuite } from './requirements';

const root = resolve(import.meta.dirname, '../..');

export class SkipReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    for (const module of testModules) {
      const tests = [...module.children.allTests()];
      const skipped = tests.map((test) => test.result()).filter((result) => result.state === 'skipped');
      if (skipped.length === 0) continue;
      const suite: SkippedSuite = {
        suite: relative(root, module.moduleId).split('\\').join('/'),
        skipped: skipped.length,
        total: tests.length,
        notes: skipped.flatMap((result) => (result.state === 'skipped' && result.note ? [result.note] : [])),
      };
      const line = skipLine(suite, requirementOf(suite));
      if (this.vitest) this.vitest.logger.log(line);
      else console.log(line);
    }
  }
}
