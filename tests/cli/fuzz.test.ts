// Generated bad inputs, 200 by default, through the real `turnlab` entry point (main(), in this
// process, so they run in seconds): configs with keys, types and values the schema refuses,
// random --set pairs, random bytes as config, checkpoint and model files, random argument lists.
// For every one: exit code 0 or 2, never "internal error" or a stack trace, no run left behind
// by a refused input, and a database that passes SQLite's integrity_check.
// FUZZ_SEED and FUZZ_N run other and longer series (2 s a case allowed): FUZZ_SEED=7 FUZZ_N=2000 npx vitest run tests/cli/fuzz.test.ts
// (FUZZ_TRACE=1 names each case as it starts).
import { openSync, closeSync, readFileSync, readdirSync, statSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { defaultRunConfigInput, loadRunConfigWithSource } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeFixtureDataDir, makeTempDir, type FixtureDataDir } from '../helpers/fixtures';
import { repoRoot, runTurnlabInProcess, TINY_OVERRIDES, type CliResult } from '../helpers/turnlab-cli';

const SEED = Number(process.env.FUZZ_SEED ?? 42);
const N = Number(process.env.FUZZ_N ?? 200);
const tmp = makeTempDir('turnlab-fuzz-');
afterAll(() => tmp.cleanup());
const bandit = join(repoRoot, 'configs/bandit.yaml');

/** `turnlab argv...` in this process, its output captured. */
const turnlab = (argv: string[]): Promise<CliResult> => runTurnlabInProcess(argv);

// ---- what the generators draw from ----------------------------------------------------------

/** Every leaf key of the full default config, as dotted paths. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}
const PATHS = leafPaths(defaultRunConfigInput());

const BAD_VALUES: unknown[] = [
  -1, 0, -0.5, 1.5, 1e12, Infinity, -Infinity, 2 ** 53 + 1, 'abc', '', ' ', null, true, false, [], [1, 2, 3], ['x'], {}, { a: 1 },
  'x'.repeat(5000), '../../../etc/passwd', '日本語', '\u0000', '${trainer.seed}', '${no.such.key}', '.nan', '.inf', '0x10', '1e3',
];
const BAD_SET_TEXT = [
  '=5', 'a', 'a.b=', 'trainer..seed=1', '.trainer.seed=1', 'trainer.seed.=1', 'trainer.seed=[1', 'trainer.seed={', 'trainer.seed=: :',
  'trainer=5', 'trainer.seed=!!binary x', 'trainer.seed=&a 1', 'trainer.seed=*a', '[0]=1', 'es_manager.train.env_configs.tags.9=Bandit',
  'custom_envs.Bandit.env_config.no_such_option=1', 'custom_envs.New.env_type=nope', 'trainer.backend=cuda', 'algorithm.adv_estimator=ppo2',
];

function typo(rng: Rng, key: string): string {
  const i = rng.int(key.length);
  const kinds = [() => key.slice(0, i) + key.slice(i + 1), () => key.slice(0, i) + 'x' + key.slice(i), () => key.toUpperCase(), () => `${key}_`];
  return rng.choice(kinds)();
}

function randomValue(rng: Rng): unknown {
  return rng.next() < 0.85 ? rng.choice(BAD_VALUES) : rng.normal() * 10 ** rng.int(8);
}

function randomPath(rng: Rng): string[] {
  const path = [...rng.choice(PATHS)];
  if (rng.next() < 0.25) path[path.length - 1] = typo(rng, path[path.length - 1]);
  if (rng.next() < 0.1) path.push('deeper');
  return path;
}

function setIn(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (node[key] === null || typeof node[key] !== 'object' || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

function randomBytes(rng: Rng, max: number): Buffer {
  return Buffer.from(Array.from({ length: rng.int(max + 1) }, () => rng.int(256)));
}

/** A --set value as the user types it: YAML flow text. */
function asSetText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? 'null';
}

// Tiny model and one iteration, so an input the config accepts costs little; the fuzzed part
// comes after these and wins.
const TINY = [...TINY_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.test_freq=0', 'trainer.save_freq=1'].flatMap((o) => ['--set', o]);

/** True when the config layer itself accepts it: not a bad input, so the generator draws again. */
function configAccepts(path: string, overrides: string[]): boolean {
  try {
    loadRunConfigWithSource(path, overrides);
    return true;
  } catch {
    return false;
  }
}

interface Input {
  kind: string;
  argv: string[];
  /** The data folder it touches, checked afterwards. */
  dataDir: string;
  /** Restores files it corrupted. */
  after?: () => void;
}

let store: FixtureDataDir;
let trainedDir: string;
let checkpoint: string;
let modelDir: string;
const checkpointFiles = new Map<string, Buffer>();
let safetensors: Buffer;

beforeAll(async () => {
  store = makeFixtureDataDir({ iterations: 2 });
  trainedDir = join(tmp.dir, 'trained');
  const trained = await turnlab(['--data-dir', trainedDir, 'train', '--config', bandit, ...TINY]);
  expect(trained.code, trained.stderr).toBe(0);
  checkpoint = join(trainedDir, 'checkpoints/run-1/iter-1');
  for (const name of readdirSync(checkpoint)) checkpointFiles.set(name, readFileSync(join(checkpoint, name)));
  modelDir = await writeRandomHfModel(join(tmp.dir, 'model'), PRESETS['small-qwen2'], { seed: 1 });
  safetensors = readFileSync(join(modelDir, 'model.safetensors'));
}, 300_000);
afterAll(() => store.cleanup());

const GENERATORS: Array<[string, number, (rng: Rng, i: number) => Input]> = [
  [
    'set-pair',
    3,
    (rng) => {
      for (;;) {
        const pair = rng.next() < 0.2 ? rng.choice(BAD_SET_TEXT) : `${randomPath(rng).join('.')}=${asSetText(randomValue(rng))}`;
        if (configAccepts(bandit, [...TINY_OVERRIDES, pair])) continue;
        return { kind: 'set-pair', argv: ['--data-dir', trainedDir, 'train', '--config', bandit, ...TINY, '--set', pair], dataDir: trainedDir };
      }
    },
  ],
  [
    'config-keys',
    3,
    (rng, i) => {
      for (;;) {
        const cfg = parseYaml(readFileSync(bandit, 'utf8')) as Record<string, unknown>;
        for (let k = 1 + rng.int(3); k > 0; k--) setIn(cfg, randomPath(rng), randomValue(rng));
        const file = join(tmp.dir, `config-${i}.yaml`);
        writeFileSync(file, toYaml(cfg));
        if (configAccepts(file, TINY_OVERRIDES)) continue;
        return { kind: 'config-keys', argv: ['--data-dir', trainedDir, 'train', '--config', file, ...TINY], dataDir: trainedDir };
      }
    },
  ],
  [
    'config-bytes',
    1,
    (rng, i) => {
      const file = join(tmp.dir, `bytes-${i}.yaml`);
      const text = readFileSync(bandit);
      // Random bytes, or the real config with a stretch of it overwritten by random bytes.
      const bytes = rng.next() < 0.5 ? randomBytes(rng, 400) : Buffer.concat([text.subarray(0, rng.int(text.length)), randomBytes(rng, 40), text.subarray(rng.int(text.length))]);
      writeFileSync(file, bytes);
      return { kind: 'config-bytes', argv: ['--data-dir', trainedDir, 'train', '--config', file, ...TINY], dataDir: trainedDir };
    },
  ],
  [
    'checkpoint-file',
    1,
    (rng) => {
      const name = rng.choice([...checkpointFiles.keys()]);
      const original = checkpointFiles.get(name)!;
      const cut = rng.next() < 0.5;
      writeFileSync(join(checkpoint, name), cut ? original.subarray(0, rng.int(original.length)) : randomBytes(rng, 300));
      const command = rng.next() < 0.5 ? ['eval', checkpoint, '--episodes', '4'] : ['resume', checkpoint, '--fork', ...TINY];
      return { kind: `checkpoint-file ${name} ${cut ? 'cut' : 'random'}`, argv: ['--data-dir', trainedDir, ...command], dataDir: trainedDir, after: () => writeFileSync(join(checkpoint, name), original) };
    },
  ],
  [
    'model-file',
    1,
    (rng) => {
      const target = rng.choice(['config.json', 'tokenizer.json', 'model.safetensors']);
      const path = join(modelDir, target);
      let after: () => void;
      if (target === 'model.safetensors') {
        // Header bytes overwritten, or the file cut short; restored in place afterwards.
        const fd = openSync(path, 'r+');
        if (rng.next() < 0.5) {
          const at = rng.int(64);
          const bytes = randomBytes(rng, 16);
          writeSync(fd, bytes, 0, bytes.length, at);
          after = () => writeSync(fd, safetensors, at, bytes.length, at);
        } else {
          ftruncateSync(fd, rng.int(safetensors.length));
          after = () => writeSync(fd, safetensors, 0, safetensors.length, 0);
        }
        const restore = after;
        after = () => {
          restore();
          closeSync(fd);
        };
      } else {
        const original = readFileSync(path);
        if (target === 'config.json' && rng.next() < 0.7) {
          const json = JSON.parse(original.toString('utf8')) as Record<string, unknown>;
          json[rng.choice(Object.keys(json))] = randomValue(rng);
          writeFileSync(path, JSON.stringify(json));
        } else {
          writeFileSync(path, randomBytes(rng, 300));
        }
        after = () => writeFileSync(path, original);
      }
      const command =
        rng.next() < 0.7 ? ['generate', '--model', modelDir, '--prompt', 'hi', '--max-new-tokens', '1', '--json'] : ['train', '--config', bandit, ...TINY, '--set', `actor_rollout_ref.model.path=${modelDir}`, '--set', 'model.context_length=64'];
      return { kind: `model-file ${target}`, argv: ['--data-dir', trainedDir, ...command], dataDir: trainedDir, after };
    },
  ],
  [
    'argv',
    3,
    (rng, i) => {
      const words = [
        'runs', 'show', 'diff', 'export', 'envs', 'eval', 'resume', 'train', 'generate', 'export-model', 'backends', 'delete', 'stop', 'tag', 'rename', 'note', 'groups', 'sweeps', 'help',
        '--json', '--all', '--what', '--format', '--out', '--force', '--where', '--columns', '--sort', 'tfevents', 'metric:train/kl>0', 'x.y<', '--episodes', '--seed', '--set', '--name', '--tag', '--seeds', '--wait', '--group', '--add', '--remove', '--follow', '--log',
        '--concurrency', '--fork', '--model', '--prompt', '--config', '--merged', '--dtype', '--max-new-tokens', '--temperature',
        '1', '2', '3', '99', '-1', '0', 'sweep:x', 'ckpt:1', 'ckpt:99', 'ckpt:x', 'runs', 'turns', 'metrics', 'episodes', 'csv', 'jsonl', 'xml',
        'bf16', 'f64', '1,2,x', '1e9', 'NaN', '', ' ', join(tmp.dir, `out-${i}`), join(tmp.dir, 'missing', 'file'), '/proc/x', '/dev/full',
        join(repoRoot, 'README.md'), 'frozen_lake', 'a=b', '=', '--', '-x', '--no-such-flag',
      ];
      const argv = Array.from({ length: 1 + rng.int(6) }, () => rng.choice(words));
      if (rng.next() < 0.15) argv.unshift('--data-dir', rng.choice(['/proc/turnlab', '/sys/turnlab', join(repoRoot, 'README.md', 'x'), join(tmp.dir, 'nothing-here')]));
      else argv.unshift('--data-dir', store.dir);
      // The server and interactive play wait for a person; nothing here would answer them.
      if (argv.includes('serve') || argv.includes('play')) return GENERATORS[5][2](rng, i);
      return { kind: 'argv', argv, dataDir: store.dir };
    },
  ],
];

function runsOf(dataDir: string): Array<{ id: number; status: string; error: string | null }> {
  try {
    const s = openStore(dataDir);
    try {
      return s.runs.allIds().map((id) => {
        const run = s.runs.get(id)!;
        return { id, status: run.status, error: run.error };
      });
    } finally {
      s.close();
    }
  } catch {
    return [];
  }
}

function runIds(dataDir: string): number[] {
  return runsOf(dataDir).map((r) => r.id);
}

function integrity(dataDir: string): string[] {
  try {
    statSync(join(dataDir, 'turnlab.sqlite'));
  } catch {
    return ['ok'];
  }
  const s = openStore(dataDir);
  try {
    return s.integrityCheck();
  } finally {
    s.close();
  }
}

describe(`fuzzed bad inputs (FUZZ_SEED=${SEED}, FUZZ_N=${N})`, () => {
  it('answers each with exit 0 or 2 and one clear line, stores nothing for a refusal, and keeps the database sound', async () => {
    const rng = new Rng(SEED);
    const weights = GENERATORS.flatMap(([, weight], g) => Array<number>(weight).fill(g));
    const problems: string[] = [];
    const seen: Record<string, number> = {};
    let reported = 0;
    for (let i = 0; i < N; i++) {
      const input = GENERATORS[rng.choice(weights)][2](rng, i);
      const before = runIds(input.dataDir);
      const what = `#${i} ${input.kind}: turnlab ${input.argv.map((a) => (a.length > 80 ? `${a.slice(0, 80)}...` : a)).join(' ')}`;
      // FUZZ_TRACE=1 says each case before it runs: the one a crash of the worker (out of memory) ended on.
      if (process.env.FUZZ_TRACE) process.stderr.write(`${what}\n`);
      let outcome: CliResult;
      try {
        outcome = await turnlab(input.argv);
      } finally {
        input.after?.();
      }
      seen[input.kind.split(' ')[0]] = (seen[input.kind.split(' ')[0]] ?? 0) + 1;
      const stderr = outcome.stderr;
      if (outcome.code !== 0 && outcome.code !== 2) problems.push(`${what}\n  exit ${outcome.code}: ${stderr.slice(0, 400)}`);
      else if (/internal error/.test(stderr) || /\n\s+at .+[:(].*\d+:\d+\)?/.test(stderr)) problems.push(`${what}\n  ${stderr.slice(0, 400)}`);
      else if (outcome.code === 2 && stderr.trim().split('\n').filter((l) => l.startsWith('turnlab: ')).length !== 1) problems.push(`${what}\n  not one line: ${stderr.slice(0, 400)}`);
      if (outcome.code === 2) {
        // A refusal leaves no run; a run that started and then failed (a config the schema
        // accepts whose problem shows only when the run plays, e.g. prompts longer than the
        // context) is kept as failed, with the line printed as its stored error.
        const said = stderr.split('\n').find((l) => l.startsWith('turnlab: '))?.slice('turnlab: '.length);
        const added = runsOf(input.dataDir).filter((r) => !before.includes(r.id));
        const unexplained = added.filter((r) => r.status !== 'failed' || r.error !== said);
        if (unexplained.length) problems.push(`${what}\n  refused, yet left run(s) ${unexplained.map((r) => `${r.id} (${r.status}: ${r.error})`).join(', ')}`);
      }
      const check = integrity(input.dataDir);
      if (check.join() !== 'ok') problems.push(`${what}\n  integrity_check: ${check.join('; ')}`);
      // Said as found, so that a long series stopped early still shows what it found.
      if (problems.length > reported) process.stderr.write(`${problems.slice(reported).join('\n')}\n`);
      reported = problems.length;
    }
    expect(problems, problems.join('\n')).toEqual([]);
    // Every kind of input was fed, and as many as asked.
    expect(Object.keys(seen).sort()).toEqual(['argv', 'checkpoint-file', 'config-bytes', 'config-keys', 'model-file', 'set-pair']);
    expect(Object.values(seen).reduce((a, b) => a + b, 0)).toBe(N);
  }, Math.max(600_000, N * 2_000));
});
