import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { STAFF_PASSWORD, adminCli, call, checkoutPath, createSession, shot, staffCall, signInWithApi } from './support';

/**
 * Every screen fits every width: each back-office page of every role and each payer page, at a
 * phone's 390 px, a laptop's 1366 px and a desktop's 1920 px. A screen fails when the document
 * scrolls sideways, a table is wider than the box it sits in (so its last columns are cut or
 * scroll), or a control (button, link, field, tab) lies past the viewport or outside an
 * ancestor that clips it. One browser and one server for the whole sweep.
 */
const WIDTHS = [390, 1366, 1920] as const;

let run = '';
const staff = { teller: '', supervisor: '', finance: '', admin: '' };
let sessionId = '';
let invoiceRef = '';
let paidCheckout = '';
let openCheckout = '';
let slipCheckout = '';

test.describe.configure({ timeout: 300_000 });
test.skip(({ isMobile }) => isMobile, 'every width is set here with setViewportSize, from the desktop project');

test.beforeAll(async ({ browserName: _browser }, info) => {
  if (info.project.name === 'mobile') return;
  run = `${Date.now() % 1_000_000}${process.pid % 1_000}`;
  const m = adminCli(['integration:create', '--merchant', `Widths Ltd ${run}`]);
  staff.teller = `w.teller.${run}`;
  staff.supervisor = `w.super.${run}`;
  staff.finance = `w.fin.${run}`;
  staff.admin = `w.admin.${run}`;
  adminCli(['staff:create', '--username', staff.teller, '--password', STAFF_PASSWORD, '--role', 'teller', '--branch', 'GCB-ACC-HS', '--full-name', 'Adwoa Mensah-Bonsu']);
  adminCli(['staff:create', '--username', staff.supervisor, '--password', STAFF_PASSWORD, '--role', 'supervisor', '--full-name', 'Kwabena Owusu-Ansah']);
  adminCli(['staff:create', '--username', staff.finance, '--password', STAFF_PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!, '--full-name', 'Efua Boateng']);
  adminCli(['staff:create', '--username', staff.admin, '--password', STAFF_PASSWORD, '--role', 'admin', '--full-name', 'Yaw Darko']);
  const key = m.api_key!;
  // An invoice paid twice by card (an exception, sessions with fees and net) and one with a long reference.
  invoiceRef = `WIDTHS-INVOICE-WITH-A-LONG-REFERENCE-${run}`;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates, commercial premises, second half-year' }] }, key);
  await call('/api/v1/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines: [{ code: 'RATES', amount_minor: 1_234_567 }] }, key);
  for (let i = 0; i < 2; i++) {
    const s = await call<{ id: string; checkout_url: string }>(
      '/api/v1/sessions',
      { amount_minor: 1_234_567, invoice_ref: invoiceRef, currency: 'GHS', customer: { name: 'Nana Akua Agyemang-Prempeh', email: 'nana.agyemang-prempeh@example.com' } },
      key,
    );
    const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
    await call(`/api/v1/checkout/sessions/${s.id}/card-payments`, { amount_minor: quote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
    sessionId = s.id;
    paidCheckout = new URL(s.checkout_url).pathname;
  }
  // A cash deposit waiting for the supervisor, recorded by the teller.
  const cash = await createSession();
  const quote = await call<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${cash.id}/quote`);
  const slip = await call<{ slip_token: string; amount_minor: number }>('/api/v1/checkout/cash-slips', { session_id: cash.id, amount_minor: quote.surcharges.cash.total_minor });
  await staffCall(staff.teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
  openCheckout = checkoutPath(await createSession());
  // A session whose payer already took a deposit slip: its checkout shows the slip.
  const slipped = await createSession();
  const slipQuote = await call<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${slipped.id}/quote`);
  await call('/api/v1/checkout/cash-slips', { session_id: slipped.id, amount_minor: slipQuote.surcharges.cash.total_minor });
  slipCheckout = checkoutPath(slipped);
});

const signIn = (page: Page, username: string) => signInWithApi(page, username, STAFF_PASSWORD);

/** What does not fit: the document scrolling sideways, tables wider than their box, controls cut off. */
function misfits(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    const name = (el: Element) => {
      const test = el.getAttribute('data-testid');
      const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
      const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 32);
      return `${el.tagName.toLowerCase()}${test ? `[data-testid=${test}]` : cls}${text ? ` "${text}"` : ''}`;
    };
    const shown = (el: Element) => {
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      if (r.width <= 1 || r.height <= 1 || s.visibility === 'hidden' || s.display === 'none') return false;
      // Inside a visually hidden box (a phone's table header: its columns are labels on each card).
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const box = a.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1) return false;
      }
      return true;
    };
    if (root.scrollWidth > root.clientWidth + 1) out.push(`the page scrolls sideways: ${root.scrollWidth} px in ${root.clientWidth}`);
    for (const table of document.querySelectorAll('table')) {
      if (!shown(table)) continue;
      const box = table.parentElement!;
      const width = table.getBoundingClientRect().width;
      if (width > box.clientWidth + 1) out.push(`${name(table).slice(0, 60)} is ${Math.round(width)} px in a ${box.clientWidth} px box`);
    }
    for (const el of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, textarea, [role=tab]')) {
      if (!shown(el)) continue;
      const r = el.getBoundingClientRect();
      // A skip link waits off-screen until it has the focus.
      if (r.right <= 0 && document.activeElement !== el) continue;
      if (r.right > root.clientWidth + 1 || r.left < -1) {
        out.push(`${name(el)} lies at ${Math.round(r.left)}–${Math.round(r.right)} px of ${root.clientWidth}`);
        continue;
      }
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const box = a.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1) out.push(`${name(el)} is cut by ${name(a).slice(0, 40)}`);
        break;
      }
    }
    return out;
  });
}

/** Opens `path` and checks it at every width; `ready` is what the loaded screen shows. */
async function sweep(page: Page, path: string, ready: (page: Page) => Promise<void>, after?: (page: Page) => Promise<void>): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto(path);
    await ready(page);
    await expect(page.locator('.bo-state--loading')).toHaveCount(0, { timeout: 30_000 });
    await after?.(page);
    await shot(page, test.info(), `widths${path.replace(/[^a-zA-Z0-9]+/g, '-').slice(0, 60)}-${width}`, { fullPage: false });
    expect.soft(await misfits(page), `${path} at ${width} px`).toEqual([]);
  }
}

const heading = (page: Page) => expect(page.locator('main h1, main h2').first()).toBeVisible({ timeout: 30_000 });

test('teller: landing, cash desk, cash-up and password', async ({ page }) => {
  await signIn(page, staff.teller);
  for (const path of ['/backoffice/', '/backoffice/teller/scan', '/backoffice/cash-up', '/backoffice/account']) await sweep(page, path, heading);
});

test('supervisor: landing, review queue, cash-up and audit trail', async ({ page }) => {
  await signIn(page, staff.supervisor);
  await sweep(page, '/backoffice/review', (p) => expect(p.getByRole('button', { name: /^Approve/ }).first()).toBeVisible({ timeout: 30_000 }));
  for (const path of ['/backoffice/', '/backoffice/cash-up', '/backoffice/audit']) await sweep(page, path, heading);
});

test('finance: overview, sessions, a session, invoices, an invoice, revenue lines, exceptions, webhooks', async ({ page }) => {
  await signIn(page, staff.finance);
  for (const path of [
    '/backoffice/',
    '/backoffice/finance',
    `/backoffice/finance/sessions/${encodeURIComponent(sessionId)}`,
    '/backoffice/finance/invoices',
    `/backoffice/finance/invoices/${encodeURIComponent(invoiceRef)}`,
    '/backoffice/finance/revenue-lines',
    '/backoffice/exceptions',
    '/backoffice/webhooks',
  ])
    await sweep(page, path, heading);
});

test('admin: every administration tab, audit trail and webhooks', async ({ page }) => {
  await signIn(page, staff.admin);
  const tabs = page.getByRole('tab');
  await sweep(page, '/backoffice/admin', (p) => expect(p.getByTestId('integration-card').first()).toBeVisible({ timeout: 30_000 }));
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/backoffice/admin');
    await expect(tabs.first()).toBeVisible({ timeout: 30_000 });
    const count = await tabs.count();
    for (let i = 1; i < count; i++) {
      await tabs.nth(i).click();
      await expect(page.locator('.bo-state--loading')).toHaveCount(0, { timeout: 30_000 });
      expect.soft(await misfits(page), `admin tab ${i} at ${width} px`).toEqual([]);
    }
  }
  for (const path of ['/backoffice/audit', '/backoffice/webhooks', '/backoffice/exceptions']) await sweep(page, path, heading);
});

test('signed out: the sign-in page', async ({ page }) => {
  await sweep(page, '/backoffice/', (p) => expect(p.getByRole('button', { name: 'Sign in' })).toBeVisible());
});

test('payer: checkout, each way to pay, the deposit slip and a paid session', async ({ page }) => {
  const landing = (p: Page) => expect(p.getByTestId('amount-due')).toBeVisible({ timeout: 30_000 });
  await sweep(page, openCheckout, landing);
  for (const rail of [/Mobile Money/, /^Bank transfer/, /^Card/, /Cash at a bank branch/]) {
    await sweep(page, openCheckout, landing, async (p) => {
      await p.getByRole('button', { name: rail }).click();
      await expect(p.getByRole('heading', { level: 2 }).first()).toBeVisible();
    });
  }
  await sweep(page, slipCheckout, (p) => expect(p.getByTestId('deposit-slip')).toBeVisible({ timeout: 30_000 }));
  await sweep(page, paidCheckout, (p) => expect(p.locator('main h1, main h2').first()).toBeVisible({ timeout: 30_000 }));
});
