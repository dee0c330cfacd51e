// What some suites need from the machine beyond `npm install`, how to tell whether it is there,
// and the command that installs it. The suites skip without it; the skip reporter
// (skip-reporter.ts) then prints one line per skipped suite saying why and how to fix it.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

export interface Requirement {
  /** What is missing, in words, e.g. "Chromium is not installed (/usr/bin/chromium not found)". */
  missing: string;
  /** The command that installs it. */
  install: string;
  /** Whether it is there. */
  present(): boolean;
  /** Suites (paths from the repository root) that skip as a whole without it. */
  suites: string[];
  /** Recognises the note of a test that skipped itself for want of it (`ctx.skip(note)`). */
  note?: RegExp;
}

/** A program at a fixed path, e.g. Debian's Chromium. */
export function missingExecutable(name: string, path: string): string {
  return `${name} is not installed (${path} not found)`;
}

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const NEEDS_CHROMIUM: Requirement = {
  missing: missingExecutable('Chromium', CHROMIUM_PATH),
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install chromium)',
  present: () => existsSync(CHROMIUM_PATH),
  suites: ['tests/e2e/compare.test.ts', 'tests/e2e/replay.test.ts', 'tests/e2e/workbench.test.ts', 'tests/e2e/workbench-flows.test.ts', 'tests/e2e/cluster-jobs.test.ts'],
};

/** The electron package writes path.txt once its (skipped during npm install) download ran. */
export const ELECTRON_PATH_FILE = join(root, 'node_modules/electron/path.txt');

export const NEEDS_ELECTRON: Requirement = {
  missing: 'the Electron binary is not installed (node_modules/electron/path.txt not found; npm install skips its download)',
  install: 'node node_modules/electron/install.js (npm run app does it once)',
  present: () => existsSync(ELECTRON_PATH_FILE),
  suites: ['tests/e2e/electron.test.ts'],
};

/** The WebGPU tests skip themselves with a note when Dawn finds no adapter. */
export const NEEDS_VULKAN: Requirement = {
  missing: 'no WebGPU adapter (no GPU, and no Vulkan driver such as Mesa >= 25 lavapipe)',
  install:
    'sudo scripts/install-system-deps.sh (or: sudo apt-get install -t bookworm-backports mesa-vulkan-drivers, with bookworm-backports in the apt sources)',
  present: () => true,
  suites: [],
  note: /WebGPU unavailable|no WebGPU adapter/,
};

/**
 * The pretrained decoders are checked against an independent float64 implementation in numpy
 * (tests/helpers/hf_reference.py); those tests skip themselves with a note when python3 has no
 * numpy (Debian's own python3 has none until python3-numpy is installed).
 */
export const NEEDS_NUMPY: Requirement = {
  missing: 'python3 has no numpy, so the independent float64 reference of the pretrained decoders (tests/helpers/hf_reference.py) cannot run',
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install python3-numpy)',
  present: () => true,
  suites: [],
  note: /python3 with numpy not found/,
};

/**
 * The TensorBoard export is read back by Google's protobuf runtime and crcmod's CRC-32C
 * (tests/helpers/tfevents_reader.py); the test skips itself with a note without them.
 */
export const NEEDS_PYTHON_PROTOBUF: Requirement = {
  missing: "python3 has no protobuf or crcmod, so the independent reader of TensorBoard's event files (tests/helpers/tfevents_reader.py) cannot run",
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install python3-protobuf python3-crcmod)',
  present: () => true,
  suites: [],
  note: /python3 with protobuf and crcmod not found/,
};

/** The exports are read back with pandas (tests/helpers/pandas_reader.py); the test skips itself with a note without it. */
export const NEEDS_PANDAS: Requirement = {
  missing: 'python3 has no pandas, so the exports cannot be read back as a researcher reads them (tests/helpers/pandas_reader.py)',
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install python3-pandas)',
  present: () => true,
  suites: [],
  note: /python3 with pandas not found/,
};

/** The Slurm tests start a one-node cluster with scripts/slurm-local.sh, which needs root. */
export const NEEDS_SLURM: Requirement = {
  missing: 'Slurm is not installed (slurm-wlm and munge: /usr/sbin/slurmctld or /usr/sbin/munged not found), or the tests do not run as root',
  install: 'sudo scripts/install-system-deps.sh (or: sudo apt-get install slurm-wlm munge), and run the Slurm tests as root',
  present: () => existsSync('/usr/sbin/slurmctld') && existsSync('/usr/sbin/munged') && process.getuid?.() === 0,
  suites: ['tests/cluster/slurm-sweep.test.ts', 'tests/e2e/cluster-jobs.test.ts'],
};

export const REQUIREMENTS: Requirement[] = [NEEDS_CHROMIUM, NEEDS_ELECTRON, NEEDS_VULKAN, NEEDS_NUMPY, NEEDS_PYTHON_PROTOBUF, NEEDS_PANDAS, NEEDS_SLURM];

export interface SkippedSuite {
  /** Path from the repository root. */
  suite: string;
  skipped: number;
  total: number;
  /** Notes of tests that skipped themselves, if any. */
  notes: string[];
}

/** The requirement a skipped suite lacks: by its path when that is missing here, else by its notes. */
export function requirementOf(skipped: SkippedSuite, requirements: Requirement[] = REQUIREMENTS): Requirement | undefined {
  return (
    requirements.find((r) => r.suites.includes(skipped.suite) && !r.present()) ??
    requirements.find((r) => r.note && skipped.notes.some((note) => r.note!.test(note)))
  );
}

/** The one line printed for a skipped suite: which, how many tests, why, and how to fix it. */
export function skipLine(skipped: SkippedSuite, requirement: Requirement | undefined): string {
  const what = `skipped ${skipped.suite} (${skipped.skipped} of ${skipped.total} tests)`;
  if (requirement) return `${what}: ${requirement.missing}; install: ${requirement.install}`;
  const note = skipped.notes[0]?.replace(/\s+/g, ' ').trim();
  return `${what}: ${note || 'no reason given'}`;
}
