// End to end: what the browser downloads to show the Runs view. The renderer is split by view
// and served compressed, so the first page stays under 600 kB on the wire, and the charts
// library and the Compare view arrive only when Compare is opened.
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';

const LIMIT_BYTES = 600_000;

let wb: OpenWorkbench;

/** Bytes on the wire (compressed bodies plus headers) of every static file the page fetched. */
async function staticBytes(requests: Request[]): Promise<number> {
  let total = 0;
  for (const request of requests) {
    const sizes = await request.sizes();
    total += sizes.responseBodySize + sizes.responseHeadersSize;
  }
  return total;
}

describe.skipIf(!hasChromium)('initial download', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 2 }, browser: { viewport: { width: 1024, height: 800 } } });
  });

  afterAll(async () => {
    await wb?.close();
  });

  it('shows the Runs view from under 600 kB of compressed files and loads Compare on demand', async () => {
    const { page, serve } = wb;
    const requests: Request[] = [];
    page.on('requestfinished', (request) => {
      if (!new URL(request.url()).pathname.startsWith('/api/')) requests.push(request);
    });
    await page.goto(serve.url);
    await page.locator('.run-row').first().waitFor();
    await page.waitForLoadState('networkidle');

    const scripts = requests.filter((r) => r.url().endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect((await script.response())!.headers()['content-encoding']).toMatch(/^(br|gzip)$/);
    }
    expect(requests.some((r) => /(CompareView|charts)-[\w-]+\.js$/.test(r.url()))).toBe(false);
    const initial = await staticBytes(requests);
    expect(initial).toBeLessThan(LIMIT_BYTES);

    const before = requests.length;
    await page.goto(serve.at('/compare'));
    await page.locator('.compare-view').waitFor();
    const later = requests.slice(before).map((r) => r.url());
    expect(later.some((url) => /CompareView-[\w-]+\.js$/.test(url))).toBe(true);
    expect(later.some((url) => /charts-[\w-]+\.js$/.test(url))).toBe(true);
  });
});
