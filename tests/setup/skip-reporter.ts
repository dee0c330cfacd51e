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
      const requirement = requirementOf(suite);
      // Under `-t pattern` every other test is skipped by the filter: not worth a line each.
      if (!requirement && suite.notes.length === 0 && this.vitest?.config.testNamePattern) continue;
      const line = skipLine(suite, requirement);
      if (this.vitest) this.vitest.logger.log(line);
      else console.log(line);
    }
  }
}
