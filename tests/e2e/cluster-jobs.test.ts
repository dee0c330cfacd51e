// The Runs view follows a sweep's jobs on a real one-node Slurm cluster (scripts/slurm-local.sh):
// a task waiting for the node reads pending with Slurm's reason, the one on it running with its
// iteration; Stop cancels the job through scancel, and the stopped run is brought home; Resume
// continues it as a new job.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSlurm, startSlurm, stopSlurm } from '../helpers/slurm-cluster';
import { repoRoot, runTurnlab, TINY_OVERRIDES, TINY_TRAIN } from '../helpers/turnlab-cli';
import { seriousViolations } from './axe';
import { ensureBuilt, hasChromium, launchBrowser, startServe, type OpenBrowser, type Serve } from './harness';

const root = mkdtempSync(join(tmpdir(), 'turnlab-e2e-slurm-'));
const dataDir = join(root, 'data');
let serve: Serve;
let browser: OpenBrowser;
let page: Page;

interface Job {
  name: string;
  state: string;
  runId: number | null;
}

describe.skipIf(!hasChromium || !hasSlurm)('cluster jobs in the Runs view', () => {
  beforeAll(async () => {
    ensureBuilt();
    startSlurm();
    // Each task asks for both of the node's cores (here 2), so one runs and the other waits.
    const cpus = Number(spawnSync('sinfo', ['-h', '-o', '%c'], { encoding: 'utf8' }).stdout.trim());
    expect(cpus).toBeGreaterThan(0);
    const submitted = runTurnlab(
      ['sweep', '--config', join(repoRoot, 'configs/bandit.yaml'), ...TINY_TRAIN, '--set', 'trainer.total_training_steps=200', '--set', 'trainer.save_freq=1',
        '--name', 'ui', '--seeds', '0,1', '--executor', 'slurm', '--remote-dir', join(root, 'shared'), '--cpus-per-task', String(cpus), '--detach'],
      { dataDir },
    );
    expect(submitted.stderr).toMatch(/sweep ui-\S+: 2 runs/);
    expect(submitted.code).toBe(0);
    serve = await startServe(dataDir);
    browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
    page = browser.page;
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    for (const job of JSON.parse(runTurnlab(['jobs', '--json'], { dataDir }).stdout || '[]') as Job[]) {
      if (job.state === 'pending' || job.state === 'running') runTurnlab(['cancel-job', job.name], { dataDir });
    }
    if (hasSlurm) stopSlurm();
    rmSync(root, { recursive: true, force: true });
  });

  const row = (name: string) => page.locator(`.cluster-job[data-job="${name}"]`);

  it('shows the queued task pending with its reason and the running one with its iteration; Stop cancels through scancel', async () => {
    await page.goto(serve.url);
    // The sweep is listed from the moment it is sent, before any of its tasks is imported.
    const sweepLine = page.locator('.sweep', { hasText: 'ui-' });
    await expect.poll(() => sweepLine.locator('.group-status').textContent(), { timeout: 30_000 }).toBe('sent to Slurm, no task imported yet (turnlab jobs polls and imports)');
    expect(await sweepLine.locator('.sweep-shape').textContent()).toBe('1 setting x 2 seeds');
    // The other Slurm test file may hold the node for a while: generous waits, no timing asserted.
    await expect.poll(() => row('ui-s0').locator('.job-state').textContent(), { timeout: 180_000 }).toMatch(/running/);
    await expect.poll(() => row('ui-s1').locator('.job-state').textContent(), { timeout: 10_000 }).toMatch(/pending \((Resources|Priority)\)/);
    await expect.poll(async () => Number(await row('ui-s0').locator('.job-iteration').textContent()), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);

    await row('ui-s0').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => row('ui-s0').locator('.job-state').textContent(), { timeout: 30_000 }).toMatch(/cancelled/);
    // The freed node takes the waiting task.
    await expect.poll(() => row('ui-s1').locator('.job-state').textContent(), { timeout: 180_000 }).toMatch(/running/);
    // Once its trainer has saved its checkpoint, the cancelled run is imported and linked.
    await expect.poll(() => row('ui-s0').getByRole('link').count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => page.locator('tr', { hasText: 'ui-s0' }).filter({ hasText: 'stopped' }).count(), { timeout: 10_000 }).toBeGreaterThan(0);

    await row('ui-s1').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => row('ui-s1').locator('.job-state').textContent(), { timeout: 30_000 }).toMatch(/cancelled/);
    // The scheduler agrees: scontrol, read by the CLI, says the same.
    const jobs = JSON.parse(runTurnlab(['jobs', '--json'], { dataDir }).stdout) as Job[];
    expect(jobs.map((j) => [j.name, j.state])).toEqual([['ui-s0', 'cancelled'], ['ui-s1', 'cancelled']]);
  }, 300_000);

  it('resumes a stopped task as a new job from its checkpoint, with the time limit typed beside Resume', async () => {
    const runId = Number((await row('ui-s0').getByRole('link').textContent())!.replace('#', ''));
    const stoppedAt = Number(await row('ui-s0').locator('.job-iteration').textContent());
    const time = row('ui-s0').locator('input.job-time');
    const resume = row('ui-s0').getByRole('button', { name: 'Resume' });
    await time.fill('soon');
    expect(await resume.isDisabled()).toBe(true);
    expect(await row('ui-s0').locator('.time-problem').innerText()).toMatch(/^time limit 'soon' is not one sbatch reads/);
    await time.fill('00:30:00');
    expect(await seriousViolations(page)).toEqual([]);
    await resume.click();
    await expect.poll(() => row('ui-s0').locator('.job-state').textContent(), { timeout: 180_000 }).toMatch(/running/);
    await expect.poll(async () => Number(await row('ui-s0').locator('.job-iteration').textContent()), { timeout: 60_000 }).toBeGreaterThan(stoppedAt);
    await row('ui-s0').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => row('ui-s0').locator('.job-state').textContent(), { timeout: 30_000 }).toMatch(/cancelled/);
    // The same local run, brought up to date from the bundle; the new job carries the limit typed.
    await expect.poll(async () => (JSON.parse(runTurnlab(['jobs', '--json'], { dataDir }).stdout) as Array<Job & { attempt: number; importedAttempt: number; resources: { time?: string } }>).find((j) => j.name === 'ui-s0'), { timeout: 60_000 })
      .toMatchObject({ state: 'cancelled', attempt: 2, importedAttempt: 2, runId, resources: { time: '00:30:00' } });
  }, 300_000);

  it('sends a sweep from the New run form to the cluster and brings its runs home', async () => {
    await page.locator('.new-run-button').click();
    await page.locator('select[name=config]').selectOption({ label: 'bandit' });
    await page.locator('input[name=runName]').fill('form');
    await page.locator('input[name=totalIterations]').fill('2');
    await page.locator('textarea[name=extra]').fill(TINY_OVERRIDES.join('\n'));
    await page.locator('input[name=seeds]').fill('1');
    await page.locator('textarea[name=grid]').fill('algorithm.gamma=0.9,1.0');
    await page.locator('select[name=executor]').selectOption('slurm');
    const start = page.locator('button.start');
    expect(await page.locator('.sweep-fields .problem').innerText()).toMatch(/needs a shared folder/);
    expect(await start.isDisabled()).toBe(true);
    await page.locator('input[name=remote-dir]').fill(join(root, 'shared'));
    expect(await page.locator('.sweep-fields .hint').innerText()).toBe('2 setting(s) x the seeds, a seed group each, as one sbatch --array');
    await expect.poll(() => start.isEnabled(), { timeout: 30_000, interval: 200 }).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await start.click();
    for (const name of ['form-gamma=0.9-s0', 'form-gamma=1.0-s0']) {
      await expect.poll(() => row(name).getByRole('link').count(), { timeout: 180_000 }).toBe(1);
      expect(await row(name).locator('.job-state').textContent()).toMatch(/completed/);
    }
    const runs = JSON.parse(runTurnlab(['runs', '--json'], { dataDir }).stdout) as Array<{ name: string; status: string; tags: string[] }>;
    // Both of the sweep's runs carry its tag: the one sweep of this base.
    const [sweepTag] = new Set(runs.filter((r) => r.name.startsWith('form-')).flatMap((r) => r.tags.filter((t) => t.startsWith('sweep:'))));
    expect(sweepTag).toMatch(/^sweep:form-\d{8}-\d{6}$/);
    expect(runs.filter((r) => r.name.startsWith('form-')).map((r) => [r.name, r.status, r.tags]).sort()).toEqual([
      ['form-gamma=0.9-s0', 'completed', ['seeds:form-gamma=0.9', sweepTag]],
      ['form-gamma=1.0-s0', 'completed', ['seeds:form-gamma=1.0', sweepTag]],
    ]);
  }, 300_000);
});
