/**
 * A rollout played on every shard at once: episode `rowKey` always goes to shard
 * rowKey mod shards (so its kept keys and values stay where they were computed), shard 0 on the
 * main thread and the others on worker threads. Each shard samples with its own stream, derived
 * from one seed the trainer draws from the run's sampling rng, so a run is the same for a given
 * seed and worker count.
 */
import { deriveSeed, Rng } from '../rng';
import type { LanguageModel } from '../model/language-model';
import { PolicyGenerator } from '../model/policy-generator';
import type { GeneratedResponse, GenerateOptions, ResponseGenerator } from '../rollout/rollout-loop';
import type { WorkerPool } from './worker-pool';

export class ShardedGenerator implements ResponseGenerator {
  private readonly local: PolicyGenerator;
  private readonly shards: number;
  private generated = 0;
  private readonly begun: Promise<unknown>;

  constructor(
    model: LanguageModel,
    private readonly pool: WorkerPool,
    seed: number,
    padId: number,
    options: { prefixReuse?: boolean } = {},
  ) {
    this.shards = pool.size + 1;
    const prefixReuse = options.prefixReuse !== false;
    this.local = new PolicyGenerator(model, new Rng(deriveSeed(seed, 'shard', 0)), padId, { prefixReuse });
    this.begun = Promise.all(
      Array.from({ length: pool.size }, (_, i) => pool.thread(i).call({ type: 'rollout-begin', seed: deriveSeed(seed, 'shard', i + 1), padId, prefixReuse })),
    );
    // Awaited by the first generate; a failure before then must not go unhandled.
    this.begun.catch(() => {});
  }

  get contextLength(): number {
    return this.local.contextLength;
  }

  private shardOf(rowKey: number): number {
    return rowKey % this.shards;
  }

  async generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]> {
    await this.begun;
    const byShard: number[][] = Array.from({ length: this.shards }, () => []);
    prompts.forEach((_, i) => byShard[this.shardOf(options.rowKeys[i])].push(i));
    const pick = <T>(values: readonly T[], rows: number[]) => rows.map((i) => values[i]);
    const ask = (rows: number[]): GenerateOptions => ({ ...options, maxNewTokens: pick(options.maxNewTokens, rows), rowKeys: pick(options.rowKeys, rows) });
    const remote = byShard.slice(1).map((rows, i) =>
      rows.length > 0 ? this.pool.thread(i).call({ type: 'generate', prompts: pick(prompts, rows), options: ask(rows) }) : Promise.resolve([]),
    );
    // Awaited below in order; a failure on one must not go unhandled while another is awaited.
    remote.forEach((p) => p.catch(() => {}));
    const out: GeneratedResponse[] = new Array(prompts.length);
    const place = (rows: number[], responses: GeneratedResponse[]) => rows.forEach((row, j) => (out[row] = responses[j]));
    if (byShard[0].length > 0) place(byShard[0], await this.local.generate(pick(prompts, byShard[0]), ask(byShard[0])));
    for (let i = 0; i < remote.length; i++) place(byShard[i + 1], await remote[i]);
    for (const response of out) this.generated += response.tokenIds.length;
    return out;
  }

  forget(rowKey: number): void {
    const shard = this.shardOf(rowKey);
    if (shard === 0) this.local.forget(rowKey);
    else this.pool.thread(shard - 1).send({ type: 'forget', rowKey });
  }

  release(): void {
    this.local.release();
    for (let i = 0; i < this.pool.size; i++) this.pool.thread(i).send({ type: 'rollout-end' });
  }

  takeTokenCount(): number {
    const n = this.generated;
    this.generated = 0;
    return n;
  }
}
