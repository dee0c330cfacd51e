// The line `npm test` prints for a skipped suite: pure functions, checked on made-up suites.
import { describe, expect, it } from 'vitest';
import { NUMPY_NOTE } from '../helpers/hf-reference';
import { missingExecutable, NEEDS_CHROMIUM, NEEDS_NUMPY, NEEDS_VULKAN, requirementOf, skipLine, type Requirement } from './requirements';

const absentBrowser: Requirement = {
  missing: missingExecutable('Chromium', '/usr/bin/chromium'),
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install chromium)',
  present: () => false,
  suites: ['tests/e2e/compare.test.ts'],
};

describe('skip lines', () => {
  it('name the suite, the missing executable and the command that installs it, in one line', () => {
    const suite = { suite: 'tests/e2e/compare.test.ts', skipped: 5, total: 5, notes: [] };
    const requirement = requirementOf(suite, [absentBrowser]);
    expect(requirement).toBe(absentBrowser);
    expect(skipLine(suite, requirement)).toBe(
      'skipped tests/e2e/compare.test.ts (5 of 5 tests): Chromium is not installed (/usr/bin/chromium not found); ' +
        'install: sudo scripts/install-system-deps.sh (or: sudo apt-get install chromium)',
    );
  });

  it('the shipped Chromium requirement reads the same way', () => {
    expect(NEEDS_CHROMIUM.missing).toBe('Chromium is not installed (/usr/bin/chromium not found)');
    expect(NEEDS_CHROMIUM.install).toContain('scripts/install-system-deps.sh');
    expect(NEEDS_CHROMIUM.install).toContain('apt-get install chromium');
  });

  it('blame a missing Vulkan driver for a test that skipped itself for want of a WebGPU adapter', () => {
    const suite = {
      suite: 'tests/train/backends.test.ts',
      skipped: 1,
      total: 3,
      notes: ['WebGPU unavailable on this machine: Backend "webgpu" cannot start: no WebGPU adapter (no GPU driver;\nsee ...)'],
    };
    expect(requirementOf(suite)).toBe(NEEDS_VULKAN);
    const line = skipLine(suite, NEEDS_VULKAN);
    expect(line).toMatch(/^skipped tests\/train\/backends\.test\.ts \(1 of 3 tests\): no WebGPU adapter .*install: sudo scripts\/install-system-deps\.sh .*mesa-vulkan-drivers/);
    expect(line).not.toContain('\n');
  });

  it('blame a python3 without numpy for the skipped comparisons with the float64 reference', () => {
    const suite = { suite: 'tests/model/hf-model.test.ts', skipped: 4, total: 14, notes: [NUMPY_NOTE, NUMPY_NOTE] };
    expect(requirementOf(suite)).toBe(NEEDS_NUMPY);
    expect(skipLine(suite, NEEDS_NUMPY)).toBe(
      'skipped tests/model/hf-model.test.ts (4 of 14 tests): python3 has no numpy, so the independent float64 reference of the pretrained decoders ' +
        '(tests/helpers/hf_reference.py) cannot run; install: sudo scripts/install-system-deps.sh (or: sudo apt-get install python3-numpy)',
    );
  });

  it('fall back to the test note, in one line, or say no reason was given', () => {
    expect(skipLine({ suite: 'tests/x.test.ts', skipped: 1, total: 2, notes: ['needs\na thing'] }, undefined)).toBe(
      'skipped tests/x.test.ts (1 of 2 tests): needs a thing',
    );
    expect(skipLine({ suite: 'tests/x.test.ts', skipped: 2, total: 2, notes: [] }, undefined)).toBe(
      'skipped tests/x.test.ts (2 of 2 tests): no reason given',
    );
  });
});
