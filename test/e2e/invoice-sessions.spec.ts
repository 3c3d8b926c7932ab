import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { adminCli, shot, call } from './support';

/**
 * The invoice detail reads its sessions a page at a time (50, newest first): the screen says how
 * many of how many it shows, "Show more" appends the next page, and the totals stay the server's
 * even while most sessions are not loaded.
 */
const PASSWORD = 'e2e-invoice-pages-1234';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const SESSIONS = 55;


const newSession = (key: string, invoiceRef: string) => call<{ id: string }>('/api/v1/sessions', { amount_minor: 1_000, invoice_ref: invoiceRef, currency: 'GHS' }, key);

async function pay(id: string): Promise<void> {
  const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${id}/quote`);
  const paid = await call<{ session_status: string }>(`/api/v1/checkout/sessions/${id}/card-payments`, { amount_minor: quote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
  expect(paid.session_status).toBe('success');
}

async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice', 'experimental']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `${screen}: serious or critical accessibility violations`).toEqual([]);
}

test('an invoice with more sessions than a page: the count, Show more to the end, totals from the server', async ({ page, isMobile }, info) => {
  test.setTimeout(120_000);
  const m = adminCli(['integration:create', '--merchant', `Invoice Pages ${run}-${info.project.name}`]);
  const username = `inv.fin.${run}.${info.project.name}`;
  adminCli(['staff:create', '--username', username, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  const key = m.api_key!;
  const invoiceRef = `PAGES-${run}`;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'WTR-BULK', name: 'Bulk water, quarter' }], deactivate_missing: false }, key);
  await call('/api/v1/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines: [{ code: 'WTR-BULK', name: 'Bulk water, quarter', amount_minor: 100_000 }] }, key);
  // The oldest session (on the second page) and the newest (on the first) are paid.
  const oldest = await newSession(key, invoiceRef);
  await pay(oldest.id);
  for (let i = 0; i < SESSIONS - 2; i += 9) await Promise.all(Array.from({ length: Math.min(9, SESSIONS - 2 - i) }, () => newSession(key, invoiceRef)));
  const newest = await newSession(key, invoiceRef);
  await pay(newest.id);

  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#shell-nav')).toBeAttached({ timeout: 30_000 }); // the sign-in hashes the password: seconds on a busy machine
  await page.goto(`/backoffice/finance/invoices/${encodeURIComponent(invoiceRef)}`);

  const sessions = page.getByTestId('invoice-sessions');
  const rows = sessions.locator('tbody tr');
  const count = sessions.getByRole('status');
  const more = sessions.getByRole('button', { name: 'Show more' });
  await expect(count).toHaveText(`Showing 50 of ${SESSIONS} sessions`);
  await expect(rows).toHaveCount(50);
  await expect(rows.first().locator(`code[title="${newest.id}"]`)).toBeVisible();
  // Both paid sessions count though only the newest is loaded: the aggregate, not a sum of rows.
  const stat = (label: string) => page.locator('.bo-stat').filter({ has: page.getByText(label, { exact: true }) }).locator('.bo-stat__value');
  await expect(stat('Paid')).toHaveText(/20\.00/);
  await expect(stat('Outstanding')).toHaveText(/980\.00/);
  await expectNoSeriousViolations(page, 'invoice detail, first page');
  // For people to look at (test-results/screens/<project>/): the top of the screen and the footer with the button.
  if (!isMobile) await page.setViewportSize({ width: 1366, height: 900 });
  await shot(page, info, 'invoice-sessions-top', { fullPage: false });
  await sessions.getByRole('heading', { name: 'Sessions' }).scrollIntoViewIfNeeded();
  await shot(page, info, 'invoice-sessions-head', { fullPage: false });
  const footer = sessions.getByRole('group', { name: 'Sessions shown' });
  await footer.scrollIntoViewIfNeeded();
  await shot(page, info, 'invoice-sessions-more', { fullPage: false });

  // From the keyboard: the button is a real button; with the last page it goes, and focus lands on the first new row.
  await more.focus();
  await page.keyboard.press('Enter');
  await expect(count).toHaveText(`Showing ${SESSIONS} of ${SESSIONS} sessions`);
  await expect(rows).toHaveCount(SESSIONS);
  await expect(more).toHaveCount(0);
  await expect(rows.nth(50)).toBeFocused();
  await expect(rows.last().locator(`code[title="${oldest.id}"]`)).toBeAttached();
  await expect(stat('Paid')).toHaveText(/20\.00/);
  await expectNoSeriousViolations(page, 'invoice detail, every page');
  await footer.scrollIntoViewIfNeeded();
  await shot(page, info, 'invoice-sessions-end', { fullPage: false });
});

test("an invoice's sessions show fee, collected and net as the sessions list does, and they add up", async ({ page, isMobile }, info) => {
  const m = adminCli(['integration:create', '--merchant', `Invoice Net ${run}-${info.project.name}`]);
  const username = `inv.net.${run}.${info.project.name}`;
  adminCli(['staff:create', '--username', username, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  const key = m.api_key!;
  const invoiceRef = `NET-${run}`;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'WTR-NET', name: 'Water' }], deactivate_missing: false }, key);
  await call('/api/v1/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines: [{ code: 'WTR-NET', name: 'Water', amount_minor: 10_000 }] }, key);
  // Two card payments (the card fee is the merchant's: taken from the amount) and one session not paid.
  const fees: number[] = [];
  for (const amount of [6_000, 4_000]) {
    const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: amount, invoice_ref: invoiceRef, currency: 'GHS' }, key);
    const quote = await call<{ surcharges: { card: { fee_minor: number; total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
    expect(quote.surcharges.card.total_minor).toBe(amount);
    fees.push(quote.surcharges.card.fee_minor);
    await pay(s.id);
  }
  const unpaid = await newSession(key, invoiceRef);
  expect(fees.every((f) => f > 0)).toBe(true);

  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('#shell-nav')).toBeAttached({ timeout: 30_000 }); // the sign-in hashes the password: seconds on a busy machine
  await page.goto(`/backoffice/finance/invoices/${encodeURIComponent(invoiceRef)}`);

  const table = page.getByTestId('invoice-sessions').locator('table');
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(3);
  const headers = await table.locator('thead th').allTextContents();
  const col = (name: string) => headers.findIndex((h) => h.trim() === name);
  for (const name of ['Amount', 'Fee', 'Collected', 'Net to merchant']) expect(col(name), `${name} column`).toBeGreaterThanOrEqual(0);
  const cell = (row: number, name: string) => rows.nth(row).locator('td, th').nth(col(name));
  const minor = (text: string) => Math.round(Number(text.replace(/[^\d.]/g, '')) * 100);

  // Newest first: the unpaid session shows dashes for what it has not paid.
  await expect(rows.first().locator(`code[title="${unpaid.id}"]`)).toBeVisible();
  for (const name of ['Fee', 'Collected', 'Net to merchant']) await expect(cell(0, name)).toHaveText('—');
  let amounts = 0;
  let nets = 0;
  for (const [i, fee] of [[1, fees[1]!], [2, fees[0]!]] as const) {
    await expect(cell(i, 'Fee')).toContainText('paid by the merchant');
    expect(minor((await cell(i, 'Fee').innerText()).split('\n')[0]!)).toBe(fee);
    const amount = minor(await cell(i, 'Amount').innerText());
    expect(minor(await cell(i, 'Collected').innerText())).toBe(amount);
    const net = minor(await cell(i, 'Net to merchant').innerText());
    expect(net).toBe(amount - fee);
    amounts += amount;
    nets += net;
  }
  // The rows add up to the invoice's figures: paid is the sessions' amounts, the net that less the card fees.
  expect(amounts).toBe(10_000);
  expect(nets).toBe(10_000 - fees[0]! - fees[1]!);
  const stat = (label: string) => page.locator('.bo-stat').filter({ has: page.getByText(label, { exact: true }) }).locator('.bo-stat__value');
  await expect(stat('Paid')).toHaveText(/100\.00/);
  await expectNoSeriousViolations(page, 'invoice detail with net');
  // The three columns more still fit: neither the page nor the table scrolls sideways.
  if (!isMobile) await page.setViewportSize({ width: 1366, height: 900 });
  const overflow = await table.evaluate((el) => ({ table: el.scrollWidth - (el.parentElement?.clientWidth ?? 0), page: document.documentElement.scrollWidth - document.documentElement.clientWidth }));
  expect(overflow.page, 'the page scrolls sideways').toBeLessThanOrEqual(0);
  expect(overflow.table, 'the table is wider than its card').toBeLessThanOrEqual(0);
  await table.scrollIntoViewIfNeeded();
  await shot(page, info, 'invoice-sessions-net', { fullPage: false });
});
