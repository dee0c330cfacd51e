// Child process of crash.test.ts: writes batches into a store forever, announcing each batch
// before it starts and after it commits, until the test kills it with SIGKILL.
import { openStore } from '../../main/store/db';
import type { MetricPoint, NewEpisode } from '../../main/store/types';
import { EPISODES_PER_BATCH, METRICS_PER_BATCH, TURNS_PER_EPISODE } from './crash-batches';

function batch(runId: number, n: number): { metrics: MetricPoint[]; episodes: NewEpisode[] } {
  const metrics = Array.from({ length: METRICS_PER_BATCH }, (_, i) => ({
    runId,
    name: `batch/${n}`,
    iteration: i,
    value: i / 7,
    wallTime: Date.now(),
  }));
  const episodes = Array.from({ length: EPISODES_PER_BATCH }, (_, e) => ({
    runId,
    iteration: n,
    split: 'train' as const,
    envTag: 'frozenlake',
    groupId: 0,
    envIndex: e,
    seed: n,
    totalReward: 1,
    success: true,
    numActions: TURNS_PER_EPISODE,
    truncated: false,
    turns: Array.from({ length: TURNS_PER_EPISODE }, () => ({
      observation: 'P___\n_O__\n___G\n'.repeat(20),
      response: `<think>${'thinking, "quoted"\n'.repeat(40)}</think><answer>Right</answer>`,
      actions: ['Right'],
      numValidActions: 1,
      reward: 0,
      done: false,
      numTokens: 400,
    })),
  }));
  return { metrics, episodes };
}

const store = openStore(process.argv[2], { create: true });
const run = store.runs.create({ name: 'crash', config: {}, seed: 0, envTags: ['frozenlake'], algorithm: 'grpo' });
let n = 0;
function next(): void {
  const { metrics, episodes } = batch(run.id, n);
  process.stdout.write(`begin ${n}\n`);
  store.transaction(() => {
    store.metrics.insert(metrics);
    store.episodes.insert(episodes);
  });
  process.stdout.write(`committed ${n}\n`);
  n++;
  setImmediate(next);
}
next();
