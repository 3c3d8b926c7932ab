import { type Page, type TestInfo } from '@playwright/test';
import { expect, test } from './fixtures';
import { atCounterWidth, call, expectNoSeriousViolations, merchantWithFinance, newSession as sessionOf, payByCard as pay, recordInvoice, runTag, shot, signInWithForm } from './support';
import { budgetNow } from '../support/pace';

/**
 * The invoice detail reads its sessions a page at a time (50, newest first): the screen says how
 * many of how many it shows, "Show more" appends the next page, and the totals stay the server's
 * even while most sessions are not loaded. At 390 px (mobile project) and 1366 px (desktop).
 */
const PASSWORD = 'e2e-invoice-pages-1234';
const SESSIONS = 55;

test.beforeEach(atCounterWidth);

/** A merchant of its own, its finance clerk, and an invoice of one line: the merchant's API key, the invoice's reference and the clerk's username. */
async function invoiceOfOneLine(info: TestInfo, name: string, line: { code: string; name: string; amount_minor: number }): Promise<{ key: string; invoiceRef: string; clerk: string }> {
  const tag = runTag(info);
  const clerk = `inv.${name.toLowerCase()}.${tag}`;
  const { key } = merchantWithFinance(`Invoice ${name} ${tag}`, clerk, PASSWORD);
  const invoiceRef = `${name.toUpperCase()}-${tag}`;
  await recordInvoice(key, invoiceRef, [line]);
  return { key, invoiceRef, clerk };
}

/** The clerk signs in and opens the invoice's detail. */
async function openInvoice(page: Page, clerk: string, invoiceRef: string): Promise<void> {
  await signInWithForm(page, clerk, PASSWORD);
  await page.goto(`/backoffice/finance/invoices/${encodeURIComponent(invoiceRef)}`);
}

test('an invoice with more sessions than a page: the count, Show more to the end, totals from the server', async ({ page }, info) => {
  test.setTimeout(budgetNow(120_000));
  const { key, invoiceRef, clerk } = await invoiceOfOneLine(info, 'Pages', { code: 'WTR-BULK', name: 'Bulk water, quarter', amount_minor: 100_000 });
  // The oldest session (on the second page) and the newest (on the first) are paid.
  const oldest = await sessionOf(key, invoiceRef, 1_000);
  await pay(oldest.id);
  for (let i = 0; i < SESSIONS - 2; i += 9) await Promise.all(Array.from({ length: Math.min(9, SESSIONS - 2 - i) }, () => sessionOf(key, invoiceRef, 1_000)));
  const newest = await sessionOf(key, invoiceRef, 1_000);
  await pay(newest.id);

  await openInvoice(page, clerk, invoiceRef);

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

test("an invoice's sessions show fee, collected and net as the sessions list does, and they add up", async ({ page }, info) => {
  const { key, invoiceRef, clerk } = await invoiceOfOneLine(info, 'Net', { code: 'WTR-NET', name: 'Water', amount_minor: 10_000 });
  // Two card payments (the card fee is the merchant's: taken from the amount) and one session not paid.
  const fees: number[] = [];
  for (const amount of [6_000, 4_000]) {
    const s = await sessionOf(key, invoiceRef, amount);
    const quote = await call<{ surcharges: { card: { fee_minor: number; total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
    expect(quote.surcharges.card.total_minor).toBe(amount);
    fees.push(quote.surcharges.card.fee_minor);
    await pay(s.id);
  }
  const unpaid = await sessionOf(key, invoiceRef, 1_000);
  expect(fees.every((f) => f > 0)).toBe(true);

  await openInvoice(page, clerk, invoiceRef);

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
  const overflow = await table.evaluate((el) => ({ table: el.scrollWidth - (el.parentElement?.clientWidth ?? 0), page: document.documentElement.scrollWidth - document.documentElement.clientWidth }));
  expect(overflow.page, 'the page scrolls sideways').toBeLessThanOrEqual(0);
  expect(overflow.table, 'the table is wider than its card').toBeLessThanOrEqual(0);
  await table.scrollIntoViewIfNeeded();
  await shot(page, info, 'invoice-sessions-net', { fullPage: false });
});
