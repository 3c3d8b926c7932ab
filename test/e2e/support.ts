import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page, type TestInfo } from '@playwright/test';
import { Agent, fetch as undiciFetch, type RequestInit } from 'undici';

/**
 * The test process's own requests to the server (set-up through the API, tokens), each on a new
 * connection. With the global fetch's keep-alive pool, a connection left idle by one test for
 * about the server's keep-alive timeout (72 s: a worker's next test can start that much later on
 * a loaded machine) could be picked just as the server closed it, and a POST then failed with
 * "other side closed" (webhooks-held.spec.ts in CI). A new connection per request costs a
 * loopback handshake.
 */
const oneConnectionPerRequest = new Agent({ pipelining: 0 });
export const apiFetch = (url: string, init: RequestInit = {}) => undiciFetch(url, { ...init, dispatcher: oneConnectionPerRequest });

export const MERCHANT_NAME = 'Accra Water Co.';
export const CALLBACK_URL = 'https://merchant.example/orders/return';

export const STAFF_PASSWORD = 'e2e-cash-desk-pass';
// The teller works at a branch (a teller without one cannot record deposits).
export const TELLER = { username: 'e2e.teller', branchCode: 'GCB-ACC-HS' };
export const SUPERVISOR = { username: 'e2e.supervisor' };

/** A day as a date field takes it (YYYY-MM-DD), in this process's zone, which the browser shares. */
export const localDay = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

export const statePath = (dataDir: string) => join(dataDir, 'e2e-state.json');

/** The phone and the counter (a laptop) every cash-desk and finance screen is checked at. */
const PHONE = { width: 390, height: 844 } as const;
const LAPTOP = { width: 1366, height: 900 } as const;
export const viewportOf = (width: number) => (width === PHONE.width ? PHONE : { width, height: LAPTOP.height });

/** For `test.beforeEach`: the desktop project's run at the counter's 1366 px (the mobile project's stays at its 390 px). */
export async function atCounterWidth({ page, isMobile }: { page: Page; isMobile: boolean }): Promise<void> {
  if (!isMobile) await page.setViewportSize(LAPTOP);
}

/**
 * A name part for what a test creates (staff, merchants, invoices): apart from every other
 * worker, project and repetition (`--repeat-each` runs a file's tests again in the same worker,
 * against the same server, where a username can be taken once only).
 */
const RUN = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
export const runTag = (info: TestInfo) => `${RUN}.${info.project.name}.${info.repeatEachIndex}`;

function apiBase(): string {
  return `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;
}

function apiKey(): string {
  const dataDir = process.env.PAYDESK_E2E_DATA_DIR;
  if (!dataDir) throw new Error('PAYDESK_E2E_DATA_DIR is not set');
  return (JSON.parse(readFileSync(statePath(dataDir), 'utf8')) as { apiKey: string }).apiKey;
}

async function merchantCall<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await apiFetch(`${apiBase()}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok && res.status !== 207) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export interface CreatedSession {
  id: string;
  checkout_url: string;
  amount_minor: number;
  invoice_ref: string;
  expires_at: string;
}

const LINES = [
  { code: 'WTR-USAGE', name: 'Water usage, March (18 m³)', amount_minor: 18_450 },
  { code: 'WTR-METER', name: 'Meter service charge', amount_minor: 1_500 },
  { code: 'SEW-LEVY', name: 'Sewerage levy', amount_minor: 2_300 },
];

/**
 * Creates a checkout session the way a merchant backend does: sync the service codes, record the
 * invoice lines, then create the session for the invoice total.
 */
export async function createSession(
  opts: { expiresInSeconds?: number; description?: string; withLines?: boolean; amountMinor?: number; currency?: string } = {},
): Promise<CreatedSession> {
  const invoiceRef = `INV-${new Date().getFullYear()}-${Math.floor(Math.random() * 900_000 + 100_000)}`;
  const withLines = opts.withLines ?? opts.amountMinor === undefined;
  let amount = opts.amountMinor ?? 25_000;
  if (withLines) {
    await merchantCall('POST', '/revenue-lines', { lines: LINES.map(({ code, name }) => ({ code, name })), deactivate_missing: false });
    await merchantCall('POST', '/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines: LINES });
    amount = LINES.reduce((sum, l) => sum + l.amount_minor, 0);
  }
  return merchantCall<CreatedSession>('POST', '/sessions', {
    amount_minor: amount,
    invoice_ref: invoiceRef,
    currency: opts.currency ?? 'GHS',
    description: opts.description ?? 'Water bill, March 2026',
    customer: { name: 'Ama Mensah', email: 'ama.mensah@example.com' },
    callback_url: CALLBACK_URL,
    ...(opts.expiresInSeconds ? { expires_in_seconds: opts.expiresInSeconds } : {}),
  });
}

export const getMerchantSession = (id: string) => merchantCall<{ id: string; status: string }>('GET', `/sessions/${encodeURIComponent(id)}`);

/** Path of the checkout page for a session (the test's baseURL is the server under test). */
export const checkoutPath = (s: CreatedSession) => new URL(s.checkout_url).pathname;

/** Full-page screenshot into test-results/screens/<project>/<name>.png, for people to look at. */
export async function shot(page: Page, info: TestInfo, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  const dir = join('test-results', 'screens', info.project.name);
  mkdirSync(dir, { recursive: true });
  // Let animations (spinners, pulse) and fonts settle so the picture is stable.
  await page.evaluate(() => document.fonts?.ready);
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: opts.fullPage ?? true, animations: 'disabled' });
}

/** The same screen at 390 px and at 1366 px (`<name>-390.png`, `<name>-1366.png`), for people to look at; the viewport is put back. */
export async function shotsAtBothWidths(page: Page, info: TestInfo, name: string): Promise<void> {
  const size = page.viewportSize();
  for (const viewport of [PHONE, LAPTOP]) {
    await page.setViewportSize(viewport);
    await shot(page, info, `${name}-${viewport.width}`);
  }
  if (size) await page.setViewportSize(size);
}

/** A dialog lies wholly inside the viewport, its Close button too, and its content is no wider than it: nothing of it is cut off at this width. */
export async function expectDialogWithinViewport(page: Page, dialog: Locator): Promise<void> {
  const { width, height } = page.viewportSize()!;
  for (const part of [dialog, dialog.getByRole('button', { name: 'Close' })]) {
    const box = (await part.boundingBox())!;
    expect(box.x, `${width} px: left edge`).toBeGreaterThanOrEqual(0);
    expect(box.y, `${width} px: top edge`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${width} px: right edge`).toBeLessThanOrEqual(width);
    expect(box.y + box.height, `${width} px: bottom edge`).toBeLessThanOrEqual(height);
  }
  expect(await dialog.evaluate((el) => el.scrollWidth - el.clientWidth), `${width} px: the dialog scrolls sideways`).toBeLessThanOrEqual(0);
}

/** Back-office call as a staff member (the cash desk), for driving a cash deposit from a test. */
export async function staffCall<T>(username: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const login = await apiFetch(`${apiBase()}/api/backoffice/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: STAFF_PASSWORD }),
  });
  if (!login.ok) throw new Error(`login ${username} → ${login.status}: ${await login.text()}`);
  const { token } = (await login.json()) as { token: string };
  const res = await apiFetch(`${apiBase()}/api/backoffice/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * `npm run admin -- <args> --json` against the e2e server's DATA_DIR (the CLI and the server
 * share it): the command's JSON object, or {} when it printed none.
 */
export function adminCli(args: string[]): Record<string, string> {
  // What `npm run admin` runs (scripts/serve.mjs: the prebuilt bundle the web server's build made,
  // or the source through tsx when that is older): 0.3 s a call against 2.3 s for `npx tsx`, which
  // a spec's beforeAll of eight calls felt as a 60 s timeout beside two busy browsers.
  const out = execFileSync(process.execPath, ['scripts/serve.mjs', 'admin', ...args, '--json'], {
    env: { ...process.env, DATA_DIR: process.env.PAYDESK_E2E_DATA_DIR },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  return JSON.parse(line ?? '{}') as Record<string, string>;
}

type Role = 'teller' | 'supervisor' | 'finance' | 'admin';

/**
 * A back-office user through the operator CLI. A teller works at the test branch unless `branch`
 * names another (null: no branch); finance staff see the merchant `merchantId`.
 */
export function createStaff(username: string, role: Role, opts: { password?: string; branch?: string | null; merchantId?: string; fullName?: string } = {}): void {
  const branch = opts.branch === undefined ? (role === 'teller' ? TELLER.branchCode : null) : opts.branch;
  adminCli([
    'staff:create',
    ...['--username', username, '--password', opts.password ?? STAFF_PASSWORD, '--role', role],
    ...(branch ? ['--branch', branch] : []),
    ...(opts.merchantId ? ['--merchant', opts.merchantId] : []),
    ...(opts.fullName ? ['--full-name', opts.fullName] : []),
  ]);
}

/** The staff of a cash desk: a teller at the test branch who records deposits and a supervisor who reviews them. */
export function createDeskStaff(staff: { teller: string; supervisor: string }, opts: { password?: string; tellerName?: string; supervisorName?: string } = {}): void {
  createStaff(staff.teller, 'teller', { password: opts.password, fullName: opts.tellerName });
  createStaff(staff.supervisor, 'supervisor', { password: opts.password, fullName: opts.supervisorName });
}

/** A merchant of its own (a new test integration) and a finance clerk who sees it: the merchant's API key and id. */
export function merchantWithFinance(merchant: string, username: string, password = STAFF_PASSWORD): { key: string; merchantId: string } {
  const m = adminCli(['integration:create', '--merchant', merchant]);
  createStaff(username, 'finance', { password, merchantId: m.merchant_id! });
  return { key: m.api_key!, merchantId: m.merchant_id! };
}

/** An invoice of the merchant whose API key is `key`, in GHS: its revenue lines synced, then its lines recorded. */
export async function recordInvoice(key: string, invoiceRef: string, lines: Array<{ code: string; name: string; amount_minor: number }>): Promise<void> {
  await call('/api/v1/revenue-lines', { lines: lines.map(({ code, name }) => ({ code, name })), deactivate_missing: false }, key);
  await call('/api/v1/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines }, key);
}

/** A GHS session of the merchant whose API key is `key`. */
export const newSession = (key: string, invoiceRef: string, amountMinor: number) =>
  call<{ id: string; checkout_url: string }>('/api/v1/sessions', { amount_minor: amountMinor, invoice_ref: invoiceRef, currency: 'GHS' }, key);

/** The payer pays the session by card (the approving test card, for the quote's card total), over the checkout API. */
export async function payByCard(sessionId: string): Promise<void> {
  const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${sessionId}/quote`);
  const paid = await call<{ session_status: string }>(`/api/v1/checkout/sessions/${sessionId}/card-payments`, {
    amount_minor: quote.surcharges.card.total_minor,
    card_number: '4242424242424242',
    expiry_month: 12,
    expiry_year: 2099,
    cvc: '123',
  });
  expect(paid.session_status).toBe('success');
}

/** The payer takes a cash deposit slip for the session, for the quote's cash total (fee included). */
export const cashSlip = async (sessionId: string) => {
  const quote = await call<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${sessionId}/quote`);
  return call<{ slip_token: string; reference: string; amount_minor: number }>('/api/v1/checkout/cash-slips', { session_id: sessionId, amount_minor: quote.surcharges.cash.total_minor });
};

/**
 * Two invoices of GHS 120.00 (revenue line RATES): `twice` paid in full twice (an over-payment),
 * `part` paid GHS 30.00 (part-paid). Their exceptions are the finance clerk's work items.
 * Returns the ids of the two sessions that paid `twice`, oldest first.
 */
export async function invoicesWithExceptions(key: string, twice: string, part: string): Promise<[string, string]> {
  for (const ref of [twice, part]) await recordInvoice(key, ref, [{ code: 'RATES', name: 'Property rates', amount_minor: 12_000 }]);
  const paid: string[] = [];
  for (const [ref, amount] of [[twice, 12_000], [twice, 12_000], [part, 3_000]] as const) {
    const s = await newSession(key, ref, amount);
    await payByCard(s.id);
    paid.push(s.id);
  }
  return [paid[0]!, paid[1]!];
}

/**
 * The page's serious and critical accessibility violations (axe-core, WCAG 2.1 A/AA and best
 * practice), one line each with the elements at fault; '' when there is none.
 */
export async function seriousAxeViolations(page: Page): Promise<string> {
  // Let the screen settle (data loaded, focus moved) before reading it.
  await page.waitForLoadState('networkidle');
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice', 'experimental']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  return bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `   ${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('')}`).join('\n')}`).join('\n');
}

/** No serious or critical accessibility violation on the screen (a soft check: the test goes on to report them all). */
export async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  expect.soft(await seriousAxeViolations(page), `${screen}: serious or critical accessibility violations`).toBe('');
}

/**
 * A JSON call to the server under test: POST with `body`, else GET; `bearer` is an API key or a
 * staff token. Anything but a 2xx (207 included) throws with the answer.
 */
export async function call<T>(path: string, body?: unknown, bearer?: string): Promise<T> {
  const res = await apiFetch(`${apiBase()}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { connection: 'close', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** A back-office session token for API calls as this staff member. */
export const staffToken = async (username: string, password = STAFF_PASSWORD) => (await call<{ token: string }>('/api/backoffice/v1/auth/login', { username, password })).token;

/** Signs in through the sign-in form, in English, and waits for the back office's menu. */
export async function signInWithForm(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#shell-nav')).toBeAttached({ timeout: 30_000 }); // the sign-in hashes the password: seconds on a busy machine
}

/** Signs in through the API: the cookie it sets is the page's, whatever language the sign-in screen speaks. */
export async function signInWithApi(page: Page, username: string, password: string): Promise<void> {
  const res = await page.request.post('/api/backoffice/v1/auth/login', { data: { username, password }, headers: { 'x-paydesk-csrf': '1' } });
  expect(res.status()).toBe(200);
}
