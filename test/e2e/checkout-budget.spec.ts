import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { CHECKOUT_BUDGET, type NetworkProfile } from './checkout-budget';
import { checkoutPath, createSession } from './support';
import { budgetNow, waitForCalm } from '../support/pace';

/**
 * The payer page on a phone on 3G, against the budget in checkout-budget.ts: the payment methods
 * on screen in time, the bytes that took, and the printable cash slip. Each run is a new browser
 * context (nothing cached, new connections) at 390 px with Chromium's network emulation.
 *
 * Measured so that the emulated network, not the busy machine, decides the figures:
 * - bytes are exact: DevTools' own count of each response (headers and compressed body) for every
 *   request the page started before the methods showed, the same on any machine;
 * - times come from the page itself (`performance.now()` from navigation start, read in the frame
 *   after the element appeared), not from the test polling for it;
 * - the server has answered a checkout page before the first measured run (its code compiled, its
 *   caches filled), so no run pays for the server's own start;
 * - a run over its time budget is measured again, up to three runs in all, each on a new context
 *   and session after waiting (at most 20 s) for a moment when this process gets a whole core;
 *   the fastest run counts. On a 2-core machine shared with other builds, the browser's CPU work
 *   (parse and compile ~300 kB of JavaScript, render) can stall for a second while the network
 *   part does not change; a regression is over budget every time. Every run is printed, and the
 *   byte and request checks hold for each.
 */

interface Marks {
  methods?: number;
  slip?: number;
}
interface Transfer {
  url: string;
  startMs: number;
  endMs?: number;
  bytes?: number;
  failed?: boolean;
  /** The response's Content-Encoding ('' when none). */
  encoding?: string;
}
interface Run {
  profile: string;
  ms: number;
  bytes: number;
  requests: Transfer[];
}

const pageMarks = () => {
  // In the page, before any of its scripts: when the methods and the slip's two codes appear.
  const marks: Marks = {};
  (window as unknown as { __budgetMarks: Marks }).__budgetMarks = marks;
  const painted = (key: keyof Marks) => requestAnimationFrame(() => (marks[key] ??= performance.now()));
  let methodsSeen = false;
  let slipSeen = false;
  const check = () => {
    if (!methodsSeen) {
      const first = document.querySelector('ul.methods button.method');
      if (first && first.getBoundingClientRect().height > 0) {
        methodsSeen = true;
        painted('methods');
      }
    }
    if (!slipSeen && document.querySelector('[data-testid="barcode-qrcode"] svg') && document.querySelector('[data-testid="barcode-code128"] svg')) {
      slipSeen = true;
      painted('slip');
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
};

/** A new phone-sized context on the emulated network, recording every request's bytes. */
async function phoneOn(browser: Browser, baseURL: string, profile: NetworkProfile) {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: CHECKOUT_BUDGET.viewportWidth, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  await page.addInitScript(pageMarks);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: profile.rttMs,
    downloadThroughput: (profile.downloadKbps * 1000) / 8,
    uploadThroughput: (profile.uploadKbps * 1000) / 8,
    connectionType: 'cellular3g',
  });
  const transfers = new Map<string, Transfer & { wallMs: number; monotonic: number }>();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (e.request.url.startsWith('data:')) return;
    transfers.set(e.requestId, { url: e.request.url, wallMs: e.wallTime * 1000, monotonic: e.timestamp, startMs: 0 });
  });
  cdp.on('Network.responseReceived', (e) => {
    const t = transfers.get(e.requestId);
    const header = Object.entries(e.response.headers).find(([name]) => name.toLowerCase() === 'content-encoding');
    if (t) t.encoding = header?.[1] ?? '';
  });
  cdp.on('Network.loadingFinished', (e) => {
    const t = transfers.get(e.requestId);
    if (t) Object.assign(t, { bytes: e.encodedDataLength, endMs: (e.timestamp - t.monotonic) * 1000 });
  });
  cdp.on('Network.loadingFailed', (e) => {
    const t = transfers.get(e.requestId);
    if (t) t.failed = true;
  });

  /** The requests started before `untilMs` (from navigation start), once each has finished. */
  const requestsBefore = async (untilMs: number): Promise<Transfer[]> => {
    const origin = await page.evaluate(() => performance.timeOrigin);
    const started = () => [...transfers.values()].filter((t) => t.wallMs - origin <= untilMs);
    await expect.poll(() => started().every((t) => t.bytes !== undefined || t.failed), { timeout: 30_000 }).toBe(true);
    return started().map((t) => ({
      url: new URL(t.url).pathname,
      startMs: Math.round(t.wallMs - origin),
      endMs: t.endMs === undefined ? undefined : Math.round(t.wallMs - origin + t.endMs),
      bytes: t.bytes,
      failed: t.failed,
      encoding: t.encoding,
    }));
  };
  return { context, page, requestsBefore };
}

const marksOf = (page: Page) => page.evaluate(() => (window as unknown as { __budgetMarks: Marks }).__budgetMarks);

async function methodsRun(browser: Browser, baseURL: string, profile: NetworkProfile): Promise<Run> {
  const session = await createSession();
  const { context, page, requestsBefore } = await phoneOn(browser, baseURL, profile);
  try {
    await page.goto(checkoutPath(session), { waitUntil: 'commit' });
    await expect(page.locator('ul.methods button.method').first()).toBeVisible({ timeout: 30_000 });
    await expect.poll(async () => (await marksOf(page)).methods).toBeDefined();
    const ms = Math.round((await marksOf(page)).methods!);
    const requests = await requestsBefore(ms);
    expect(requests.filter((r) => r.failed), 'no request failed').toEqual([]);
    return { profile: profile.name, ms, bytes: requests.reduce((n, r) => n + (r.bytes ?? 0), 0), requests };
  } finally {
    await context.close();
  }
}

async function slipRun(browser: Browser, baseURL: string, profile: NetworkProfile): Promise<Run> {
  const session = await createSession();
  const { context, page, requestsBefore } = await phoneOn(browser, baseURL, profile);
  try {
    await page.goto(checkoutPath(session), { waitUntil: 'commit' });
    await page.locator('button.method[data-rail="cash"]').click({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Create deposit slip' }).click({ timeout: 30_000 });
    await expect(page.getByTestId('barcode-code128').locator('svg')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('barcode-qrcode').locator('svg')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Print slip' })).toBeVisible();
    await expect.poll(async () => (await marksOf(page)).slip).toBeDefined();
    const ms = Math.round((await marksOf(page)).slip!);
    const requests = await requestsBefore(ms);
    return { profile: profile.name, ms, bytes: requests.reduce((n, r) => n + (r.bytes ?? 0), 0), requests };
  } finally {
    await context.close();
  }
}

/** The run that counts: the fastest. */
const fastest = (runs: Run[]): number => Math.min(...runs.map((r) => r.ms));

/** Runs once, and again (up to three runs) only while every run so far is over budget. */
async function timed(measure: () => Promise<Run>, maxMs: number): Promise<Run[]> {
  const runs = [await measure()];
  while (runs.length < 3 && fastest(runs) > maxMs) {
    await waitForCalm(20_000);
    runs.push(await measure());
  }
  return runs;
}

const report: Record<string, unknown> = {};
function print(what: string, runs: Run[], maxMs: number) {
  for (const [i, run] of runs.entries()) {
    const lines = run.requests
      .toSorted((a, b) => a.startMs - b.startMs)
      .map((r) => `    ${String(r.startMs).padStart(5)}–${String(r.endMs ?? '?').padStart(5)} ms ${String(r.bytes ?? 0).padStart(7)} B ${(r.encoding || '-').padEnd(4)} ${r.url}`);
    console.log(
      `checkout budget · ${what} · ${run.profile}${runs.length > 1 ? ` (run ${i + 1} of ${runs.length})` : ''}: ` +
        `${run.ms} ms (budget ${maxMs} ms), ${(run.bytes / 1000).toFixed(1)} kB in ${run.requests.length} requests\n${lines.join('\n')}`,
    );
  }
  report[`${what} · ${runs[0]!.profile}`] = runs.map(({ ms, bytes, requests }) => ({ ms, bytes, requests: requests.length, maxMs }));
}

test.describe.configure({ mode: 'serial' });
// Run by the `budget` project (playwright.config.ts) alone, once the other projects have finished.

test.beforeAll(async ({ browser, baseURL }) => {
  // The server's first checkout page (and its API answers) out of the way, unthrottled.
  const context = await browser.newContext({ baseURL: baseURL! });
  const page = await context.newPage();
  await page.goto(checkoutPath(await createSession()));
  await expect(page.locator('ul.methods button.method').first()).toBeVisible();
  await context.close();
});

test.afterAll(() => {
  if (Object.keys(report).length === 0) return;
  mkdirSync('test-results', { recursive: true });
  writeFileSync(join('test-results', 'checkout-budget.json'), JSON.stringify({ measuredAt: new Date().toISOString(), ...report }, null, 2));
});

for (const { profile, maxMs } of CHECKOUT_BUDGET.methodsVisibleMs) {
  test(`${profile.name}: the payment methods show within ${maxMs} ms, in at most ${CHECKOUT_BUDGET.firstViewMaxBytes / 1000} kB`, async ({ browser, baseURL }) => {
    test.setTimeout(budgetNow(120_000));
    const runs = await timed(() => methodsRun(browser, baseURL!, profile), maxMs);
    print('payment methods', runs, maxMs);
    for (const run of runs) {
      expect(run.bytes, 'bytes transferred before the methods showed').toBeLessThanOrEqual(CHECKOUT_BUDGET.firstViewMaxBytes);
      // The page itself: no validation library, no barcode library, no rail's screen before a rail is chosen.
      const urls = run.requests.map((r) => r.url);
      expect(urls.filter((u) => /\/assets\/(?:zod|JsBarcode|browser|esm|bwip|momo-payment|card-payment|cash-slip|bank-transfer)/.test(u))).toEqual([]);
      // The page and its code come brotli-compressed.
      expect(run.requests.filter((r) => !r.url.startsWith('/api/') && r.encoding !== 'br').map((r) => r.url)).toEqual([]);
      // Each read once: the app takes the answers its first-fetch module started.
      expect(urls.filter((u, i) => urls.indexOf(u) !== i)).toEqual([]);
      expect(urls.filter((u) => u.startsWith('/api/')).length).toBe(3);
    }
    expect(fastest(runs), `payment methods on ${profile.name}`).toBeLessThanOrEqual(maxMs);
  });
}

test(`${CHECKOUT_BUDGET.cashSlip.profile.name}: the printable cash slip within ${CHECKOUT_BUDGET.cashSlip.maxMs} ms`, async ({ browser, baseURL }) => {
  test.setTimeout(budgetNow(120_000));
  const { profile, maxMs } = CHECKOUT_BUDGET.cashSlip;
  const runs = await timed(() => slipRun(browser, baseURL!, profile), maxMs);
  print('printable cash slip', runs, maxMs);
  expect(fastest(runs), `cash slip on ${profile.name}`).toBeLessThanOrEqual(maxMs);
});
