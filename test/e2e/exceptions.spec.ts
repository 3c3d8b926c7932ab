import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { shot, adminCli, call } from './support';

/**
 * The finance exceptions screen against the real server: an invoice paid twice and one paid in
 * part show up with what happened, the amounts and links to the sessions; the CSV has them too.
 */
const PASSWORD = 'e2e-exceptions-pass';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;



/** A session for the invoice, paid with the approving test card over the public checkout API. */
async function paidSession(key: string, invoiceRef: string, amount: number): Promise<string> {
  const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: amount, invoice_ref: invoiceRef, currency: 'GHS' }, key);
  const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
  const paid = await call<{ session_status: string }>(`/api/v1/checkout/sessions/${s.id}/card-payments`, {
    amount_minor: quote.surcharges.card.total_minor,
    card_number: '4242424242424242',
    expiry_month: 12,
    expiry_year: 2099,
    cvc: '123',
  });
  expect(paid.session_status).toBe('success');
  return s.id;
}

test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application');

test('finance sees an invoice paid twice and a part-payment on the exceptions screen, opens a session, exports CSV', async ({ page }, info) => {
  const m = adminCli(['integration:create', '--merchant', `Exceptions Co ${run}`]);
  const username = `exc.fin.${run}`;
  adminCli(['staff:create', '--username', username, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  const key = m.api_key!;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates' }] }, key);
  const twice = `EXC-TWICE-${run}`;
  const part = `EXC-PART-${run}`;
  for (const ref of [twice, part]) await call('/api/v1/invoice-lines', { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'RATES', amount_minor: 12_000 }] }, key);
  const first = await paidSession(key, twice, 12_000);
  const second = await paidSession(key, twice, 12_000);
  await paidSession(key, part, 3_000);

  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Exceptions' }).click();

  // One work item per invoice: the invoice paid twice (paid twice + over-paid merged) and the part-paid one.
  await expect(page.getByRole('tab', { name: 'Open (2)' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Back office' }).getByTestId('nav-count-exceptions')).toHaveText(/^2/);
  const twiceItem = page.getByTestId(`exception-${twice}`);
  await expect(twiceItem).toContainText('Paid twice');
  await expect(twiceItem).toContainText('Over-paid');
  await expect(twiceItem).toContainText('120.00'); // billed
  await expect(twiceItem).toContainText('240.00'); // collected
  await expect(twiceItem).toContainText('in 2 payments');
  await expect(page.getByTestId(`exception-${part}`)).toContainText('90.00 still outstanding');
  await shot(page, info, 'bo-30-exceptions');

  // Resolving needs a note; then the item leaves the open list and the menu count drops.
  await twiceItem.getByRole('button', { name: 'Resolve…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Resolve' }).click();
  await expect(dialog.getByText('Write a note')).toBeVisible();
  await dialog.getByLabel('Note (required)').fill('Refunded the second payment');
  await dialog.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.getByRole('tab', { name: 'Open (1)' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Back office' }).getByTestId('nav-count-exceptions')).toHaveText(/^1/);
  await page.getByRole('tab', { name: /Resolved/ }).click();
  await expect(page.getByTestId(`exception-${twice}`)).toContainText('Refunded the second payment');
  await expect(page.getByTestId(`exception-${twice}`)).toContainText(`by exc.fin.${run}`);
  await page.getByRole('tab', { name: /^All/ }).click();

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8');
  expect(csv.split('\r\n')[0]).toContain('detected_at,kind,invoice_ref');
  expect(csv).toContain(`paid_twice,${twice}`);
  expect(csv).toContain(first);
  expect(csv).toContain(',-9000,'); // the part-payment's outstanding difference, a number

  // The over-paid invoice says so, with the amount and a link to its exception; at 390 px too, without sideways scrolling.
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/backoffice/finance/invoices/${twice}`);
    await expect(page.getByTestId('invoice-truth')).toContainText('collected GHS 120.00 more than it billed');
    await expect(page.locator('.bo-stat').filter({ hasText: 'Over-paid' }).first()).toContainText('120.00');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(page, info, `bo-31-invoice-overpaid-${width}`);
    await page.goto('/backoffice/exceptions');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(page, info, `bo-30-exceptions-${width}`);
  }
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`/backoffice/finance/invoices/${part}`);
  await expect(page.getByTestId('invoice-truth')).toContainText('GHS 90.00 of GHS 120.00 is still outstanding');
  await page.getByRole('link', { name: 'See its exception' }).click();
  await expect(page.getByText(`Showing invoice ${part} only`)).toBeVisible();
  await expect(page.getByTestId(`exception-${part}`)).toBeVisible();
  await expect(page.getByTestId(`exception-${twice}`)).toHaveCount(0);
  await page.goto(`/backoffice/exceptions`);
  await page.getByRole('tab', { name: /^All/ }).click();

  // The session link opens its detail and timeline in Finance.
  await page.getByTestId(`exception-${twice}`).locator(`a[href="/backoffice/finance/sessions/${second}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/backoffice/finance/sessions/${second}$`));
  await expect(page.getByTestId('session-timeline')).toContainText('Merchant notified: payment completed');
});
