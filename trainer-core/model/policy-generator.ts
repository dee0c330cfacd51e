import type { Rng } from '../rng';
import type { LanguageModel } from './language-model';
import { PrefixCache } from './prefix-cache';
import { sampleTokens, type SampleOptions } from './sampler';
import { explainSamplingMemory } from './backend-memory';
import { phaseCount } from './phase-profile';
import type { GeneratedResponse, GenerateOptions, ResponseGenerator } from '../rollout/rollout-loop';

/**
 * The rollout layer's generator, played by a policy with the run's sampling rng. With prefix
 * reuse (the default) it keeps every episode's keys and values between turns; release() frees
 * them when the rollout ends.
 */
export class PolicyGenerator implements ResponseGenerator {
  /** Tokens generated since the last `takeTokenCount()`, for throughput metrics. */
  private generated = 0;
  private readonly prefixes: PrefixCache | null;

  constructor(
    private readonly model: LanguageModel,
    private readonly rng: Rng,
    private readonly padId: number,
    options: { prefixReuse?: boolean } = {},
  ) {
    this.prefixes = options.prefixReuse === false ? null : new PrefixCache();
  }

  get contextLength(): number {
    return this.model.config.contextLength;
  }

  async generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]> {
    const result = await sampleTokens(this.model, prompts, this.sampleOptions(options)).catch((error: unknown) => {
      throw explainSamplingMemory(error, prompts.length);
    });
    phaseCount('generate calls', 1);
    phaseCount('prompts', prompts.length);
    // One batch serves prompts with different room left; each reply is cut to its own limit.
    return result.tokens.map((ids, i) => {
      const limit = options.maxNewTokens[i];
      this.generated += Math.min(ids.length, limit);
      phaseCount('tokens generated', Math.min(ids.length, limit));
      return { tokenIds: ids.slice(0, limit), logprobs: result.logprobs[i].slice(0, limit) };
    });
  }

  private sampleOptions(options: GenerateOptions): SampleOptions {
    return {
      maxNewTokens: Math.max(...options.maxNewTokens),
      temperature: options.doSample ? options.temperature : 0,
      topP: options.topP,
      topK: options.topK > 0 ? options.topK : 0,
      greedy: !options.doSample || options.temperature === 0,
      stopIds: [options.stopTokenId],
      stopSequences: options.stopSequences,
      padId: this.padId,
      rng: this.rng,
      prefixCache: this.prefixes ?? undefined,
      rowKeys: options.rowKeys,
    };
  }

  forget(rowKey: number): void {
    this.prefixes?.forget(rowKey);
  }

  release(): void {
    this.prefixes?.dispose();
  }

  takeTokenCount(): number {
    const n = this.generated;
    this.generated = 0;
    return n;
  }
}
