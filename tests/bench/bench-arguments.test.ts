// The benchmarks' words (`npm run bench -- llm --steps 3`) are checked before anything runs: a
// mistake is one BenchArgumentError line naming the option, the value and what fits, never a
// figure of NaN or a negative rate. Only the parse functions run here, no benchmark.
import { describe, expect, it } from 'vitest';
import { parseEnvsArgs, USAGE as ENVS_USAGE } from '../../bench/envs';
import { parseIterationArgs, USAGE as ITERATION_USAGE } from '../../bench/iteration';
import { parseLlmBenchArgs, USAGE as LLM_USAGE } from '../../bench/llm';
import { parseLmHeadArgs, USAGE as LM_HEAD_USAGE } from '../../bench/lm-head';
import { parseModelArgs, USAGE as MODEL_USAGE } from '../../bench/model';

/** The error `parse` throws, checked to be the runner's one-line kind. */
function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect((error as Error).name).toBe('BenchArgumentError');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('bench arguments', () => {
  it('llm: an unknown option names the closest, a bad value names itself and what fits', () => {
    expect(parseLlmBenchArgs([])).toMatchObject({ backend: 'auto', steps: 1, dtype: 'auto' });
    expect(parseLlmBenchArgs(['--presets', 'tiny-qwen2', '--lengths', '8', '--rows', '1,4', '--steps', '3', '--dtype', 'float32', '--profile', '--checkpointing', 'off'])).toMatchObject({
      presets: ['tiny-qwen2'], lengths: [8], rows: [1, 4], steps: 3, dtype: 'float32', profile: true, checkpointing: false,
    });
    expect(refusal(() => parseLlmBenchArgs(['--bakend', 'wasm']))).toMatch(/^unknown option --bakend; did you mean --backend\?/);
    expect(refusal(() => parseLlmBenchArgs(['--dtype', 'float16']))).toBe('--dtype float16: use one of auto, float32 (did you mean float32?)');
    expect(refusal(() => parseLlmBenchArgs(['--backend', 'wasmm']))).toMatch(/^--backend wasmm: use one of .*wasm.*\(did you mean wasm\?\)/);
    expect(refusal(() => parseLlmBenchArgs(['--steps', '-1']))).toBe('--steps -1: a whole number of 1 or more');
    expect(refusal(() => parseLlmBenchArgs(['--steps', 'abc']))).toBe('--steps abc: a whole number of 1 or more');
    expect(refusal(() => parseLlmBenchArgs(['--layers', '1.5']))).toBe('--layers 1.5: a whole number of 1 or more');
    expect(refusal(() => parseLlmBenchArgs(['--vocab', '0']))).toBe('--vocab 0: a whole number of 1 or more');
    expect(refusal(() => parseLlmBenchArgs(['--rows', '-3']))).toMatch(/^--rows -3: whole numbers of 1 or more/);
    expect(refusal(() => parseLlmBenchArgs(['--steps']))).toBe('--steps needs a value: a whole number of 1 or more');
    expect(refusal(() => parseLlmBenchArgs(['--presets', 'qwen2.5-05b']))).toMatch(/unknown preset "qwen2.5-05b"; did you mean qwen2.5-0.5b\?/);
  });
  it('lm-head: whole numbers of its own options only, not an object property such as --toString', () => {
    expect(parseLmHeadArgs(['--width', '128'])).toEqual({ width: 128, vocab: 151936, rows: 108, batch: 64 });
    expect(refusal(() => parseLmHeadArgs(['--toString', '1']))).toBe('unknown option --toString (options: --width, --vocab, --rows, --batch)');
    expect(refusal(() => parseLmHeadArgs(['--widht', '64']))).toMatch(/^unknown option --widht; did you mean --width\?/);
    expect(refusal(() => parseLmHeadArgs(['--vocab', 'abc']))).toBe('--vocab abc: a whole number of 1 or more');
    expect(refusal(() => parseLmHeadArgs(['--rows', '0']))).toBe('--rows 0: a whole number of 1 or more');
  });
  it('envs: --seconds N, not a bare number', () => {
    expect(parseEnvsArgs([])).toEqual({ seconds: 1 });
    expect(parseEnvsArgs(['--seconds', '3'])).toEqual({ seconds: 3 });
    expect(refusal(() => parseEnvsArgs(['3']))).toMatch(/^unknown option 3/);
    expect(refusal(() => parseEnvsArgs(['--seconds', '-1']))).toBe('--seconds -1: a whole number of 1 or more');
  });
  it('model: a backend (the closest of a misspelt one) and --small', () => {
    expect(parseModelArgs([])).toEqual({ backend: 'auto', small: false });
    expect(parseModelArgs(['wasm', '--small'])).toEqual({ backend: 'wasm', small: true });
    expect(refusal(() => parseModelArgs(['wasmm']))).toMatch(/^backend wasmm: use one of .*\(did you mean wasm\?\)/);
    expect(refusal(() => parseModelArgs(['--samll']))).toMatch(/^unknown option --samll; did you mean --small\?/);
  });
  it('iteration: configs checked by name, --help is no config, --ragen and --start say what they take', () => {
    expect(parseIterationArgs([])).toMatchObject({ mode: 'speed', names: ['frozenlake-ragen-prompt', 'sokoban-bilevel-gae'] });
    expect(parseIterationArgs(['--pretrained'])).toMatchObject({ mode: 'pretrained', names: ['frozenlake'] });
    expect(parseIterationArgs(['--ragen', 'tiny-qwen2', '--backend', 'wasm', '--small', 'trainer.seed=2'])).toMatchObject({
      mode: 'ragen', names: [], ragen: { preset: 'tiny-qwen2', backend: 'wasm', small: true, overrides: ['trainer.seed=2'] },
    });
    expect(refusal(() => parseIterationArgs(['--help']))).toMatch(/^unknown option --help/);
    expect(refusal(() => parseIterationArgs(['sokoban-bilevel-gea']))).toMatch(/^unknown config "sokoban-bilevel-gea"; did you mean sokoban-bilevel-gae\? \(one of .*frozenlake/);
    expect(refusal(() => parseIterationArgs(['--pretrained', 'nosuch']))).toMatch(/^--pretrained: unknown config "nosuch"/);
    expect(refusal(() => parseIterationArgs(['--ragen']))).toMatch(/^--ragen needs a model preset first, e.g. --ragen tiny-qwen2/);
    expect(refusal(() => parseIterationArgs(['--ragen', '--small']))).toMatch(/^--ragen needs a model preset first/);
    expect(refusal(() => parseIterationArgs(['--ragen', 'tiny-qwen']))).toMatch(/unknown preset "tiny-qwen"; did you mean tiny-qwen2\?/);
    expect(refusal(() => parseIterationArgs(['--start', 'frozenlake']))).toMatch(/^--start frozenlake: give config=DIR \(a checkpoint folder\), e.g. --start frozenlake=/);
    expect(refusal(() => parseIterationArgs(['--start', 'sokoban-bilevel-gae=/nonexistent/iter-1']))).toMatch(/no folder \/nonexistent\/iter-1/);
    expect(refusal(() => parseIterationArgs(['--backend', 'wasm']))).toMatch(/^--backend goes with --ragen PRESET/);
    expect(refusal(() => parseIterationArgs(['--ragen', 'tiny-qwen2', '--backend', 'wasmm']))).toMatch(/did you mean wasm\?/);
  });
  it('each USAGE opens with the bench, what it measures and how long it takes', () => {
    for (const [name, usage] of Object.entries({ llm: LLM_USAGE, 'lm-head': LM_HEAD_USAGE, model: MODEL_USAGE, envs: ENVS_USAGE, iteration: ITERATION_USAGE })) {
      expect(usage.split('\n')[0]).toMatch(new RegExp(`^${name}: .+ on 2 cores`));
    }
  });
});
