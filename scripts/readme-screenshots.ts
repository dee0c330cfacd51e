// The README's screenshots, taken of real runs: trains them with the `turnlab` command into a
// data folder (kept, so a second call only takes the pictures again), serves the workbench on
// it and photographs each view in Debian's Chromium. The e2e tests photograph their fixtures
// instead, whose made-up configs would show in the README as errors.
//
//   npx tsx scripts/readme-screenshots.ts [--data-dir DIR] [--out docs/screenshots]
//
// About 10 minutes on 2 cores the first time (four short runs and one evaluation).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, launchBrowser, root, startServe } from '../tests/e2e/harness';
import { saveScreenshot } from '../tests/e2e/screenshots';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: join(root, 'test-results', 'readme-screenshots-data') },
    out: { type: 'string', default: join(root, 'docs', 'screenshots') },
  },
});
const dataDir = resolve(values['data-dir']!);
const out = resolve(values.out!);

const turnlab = (...args: string[]): string =>
  execFileSync(process.execPath, [join(root, 'bin/turnlab.js'), '--data-dir', dataDir, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 30,
  });

interface RunRow {
  id: number;
  name: string;
}
const runs = (): RunRow[] => JSON.parse(turnlab('runs', '--json')) as RunRow[];

const LAKE = 'FrozenLakeNonSlip';
const ITERATIONS = 40;

function trainRuns(): void {
  console.log(`training the runs into ${dataDir}`);
  turnlab('train', '--config', 'configs/frozenlake-nonslip.yaml', '--seeds', '1,3',
    '--set', `trainer.total_training_steps=${ITERATIONS}`, '--set', 'trainer.save_freq=20');
  const seed3 = runs().find((run) => run.name === 'frozenlake-nonslip-s3')!;
  // The fork the config's own comment suggests, from the last checkpoint.
  turnlab('resume', String(seed3.id), '--fork', '--set', 'actor_rollout_ref.actor.optim.lr=2e-4',
    '--set', 'actor_rollout_ref.actor.optim.lr_scheduler_type=constant', '--set', `trainer.total_training_steps=${ITERATIONS + 20}`);
  turnlab('eval', String(seed3.id), '--episodes', '64', '--seed', '100000');
  turnlab('train', '--config', 'configs/bandit.yaml');
}

interface EpisodeRow {
  id: number;
  iteration: number;
  split: string;
  success: boolean | number;
  num_turns?: number;
}

/** A validation episode of the run's last iteration that reached the goal in several turns, to replay. */
function episodeToReplay(runId: number): EpisodeRow {
  const episodes = turnlab('export', String(runId), '--what', 'episodes', '--format', 'jsonl')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as EpisodeRow);
  const last = Math.max(...episodes.map((e) => e.iteration));
  const candidates = episodes.filter((e) => e.iteration === last && e.split === 'val');
  return candidates.find((e) => Boolean(e.success) && (e.num_turns ?? 0) >= 3) ?? candidates[0];
}

async function photograph(): Promise<void> {
  ensureBuilt();
  const all = runs();
  const lakes = all.filter((run) => run.name.startsWith('frozenlake-nonslip'));
  const seed3 = lakes.find((run) => run.name === 'frozenlake-nonslip-s3')!;
  const episode = episodeToReplay(seed3.id);
  const serve = await startServe(dataDir);
  const { page, close } = await launchBrowser({ viewport: { width: 1440, height: 900 } });
  try {
    await page.goto(serve.url); // the address with the access token, which the page keeps
    const shoot = async (hash: string, ready: string, name: string, fullPage = false): Promise<void> => {
      await page.goto(serve.at(hash));
      await page.locator(ready).first().waitFor();
      await page.waitForTimeout(800); // charts animate in
      console.log(await saveScreenshot(page, out, name, { fullPage }));
    };
    await shoot('/runs', '.run-row', 'runs');
    await shoot(`/runs/${seed3.id}`, 'canvas', 'run');
    const metrics = [`val/${LAKE}/success`, `train/${LAKE}/reward`].map((m) => `metric=${encodeURIComponent(m)}`).join('&');
    await shoot(`/compare?runs=${lakes.map((run) => run.id).join(',')}&${metrics}&smooth=0.6`, '.compare-chart canvas', 'compare', true);
    await shoot(`/runs/${seed3.id}/replay?iteration=${episode.iteration}&episode=${episode.id}&turn=2`, '.turn, .episode', 'replay');
    await shoot(`/runs/${seed3.id}/checkpoints`, 'table', 'checkpoints');
    await page.goto(serve.at('/runs'));
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'frozenlake-nonslip' });
    await page.locator('button.start').waitFor();
    await page.waitForTimeout(500);
    console.log(await saveScreenshot(page, out, 'new-run'));
  } finally {
    await close();
    await serve.stop();
  }
}

if (!existsSync(join(dataDir, 'turnlab.sqlite')) || runs().length === 0) trainRuns();
await photograph();
