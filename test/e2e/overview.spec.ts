import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { shot, adminCli, call, viewportOf } from './support';
import { budgetNow } from '../support/pace';

/**
 * The finance overview against the real server: a card payment (fee paid by the merchant) and a
 * cash payment (fee paid by the payer) add up to gross, fees and net; both charts draw and have
 * a table view; the page fits a phone and a laptop without sideways scrolling.
 */
const PASSWORD = 'e2e-overview-pass-1234';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;

const login = async (u: string) => (await call<{ token: string }>('/api/backoffice/v1/auth/login', { username: u, password: PASSWORD })).token;

async function noSidewaysScroll(page: Page): Promise<void> {
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(wide, 'the page scrolls sideways').toBeLessThanOrEqual(0);
}

test.skip(({ isMobile }) => isMobile, 'one browser visits both widths');

test('finance lands on the overview: gross, fees by bearer, net, charts with table views, at 390 and 1366 px', async ({ page }, info) => {
  test.setTimeout(budgetNow(120_000));
  const m = adminCli(['integration:create', '--merchant', `Overview Co ${run}`]);
  const fin = `ov.fin.${run}`;
  adminCli(['staff:create', '--username', fin, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  const branch = await (async () => {
    const admin = `ov.adm.${run}`;
    adminCli(['staff:create', '--username', admin, '--password', PASSWORD, '--role', 'admin']);
    const banks = await call<{ banks: Array<{ branches: Array<{ id: string }> }> }>('/api/backoffice/v1/admin/banks', undefined, await login(admin));
    return banks.banks.flatMap((b) => b.branches)[0]!.id;
  })();
  const teller = `ov.tel.${run}`;
  const sup = `ov.sup.${run}`;
  adminCli(['staff:create', '--username', teller, '--password', PASSWORD, '--role', 'teller', '--branch', branch]);
  adminCli(['staff:create', '--username', sup, '--password', PASSWORD, '--role', 'supervisor']);
  const key = m.api_key!;

  const card = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 18_500, invoice_ref: `OV-CARD-${run}` }, key);
  const cardQuote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${card.id}/quote`);
  await call(`/api/v1/checkout/sessions/${card.id}/card-payments`, { amount_minor: cardQuote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
  const cash = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 10_000, invoice_ref: `OV-CASH-${run}` }, key);
  const cashQuote = await call<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${cash.id}/quote`);
  const slip = await call<{ slip_token: string }>('/api/v1/checkout/cash-slips', { session_id: cash.id, amount_minor: cashQuote.surcharges.cash.total_minor });
  const dep = await call<{ deposit: { id: string } }>(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { amount_minor: cashQuote.surcharges.cash.total_minor }, await login(teller));
  await call(`/api/backoffice/v1/deposits/${dep.deposit.id}/approve`, {}, await login(sup));

  await page.setViewportSize(viewportOf(1366));
  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(fin);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();

  const totals = page.getByTestId('overview-totals');
  await expect(totals.getByText('Gross collected')).toBeVisible();
  // card 185.00 (fee 3.61 paid by the merchant) + cash 100.00 with 2.00 paid by the payer
  await expect(totals).toContainText(/GHS\s?287\.00/);
  await expect(totals).toContainText(/GHS\s?2\.00/);
  await expect(totals).toContainText(/GHS\s?3\.61/);
  await expect(totals).toContainText(/GHS\s?281\.39/);
  await expect(page.getByTestId('overview-counts')).toContainText('2');
  await expect(page.getByTestId('overview-rails').getByRole('row', { name: /Card/ })).toContainText(/GHS\s?181\.39/);

  // Live only: nothing (a test integration).
  await page.getByLabel('Mode').selectOption('live');
  await expect(totals).toContainText(/GHS\s?0\.00/);
  await page.getByLabel('Mode').selectOption('all');
  await expect(totals).toContainText(/GHS\s?287\.00/);

  // Each chart's table view, opened once: today's row, the day a <time> in the staff member's
  // locale whose machine date names the row.
  const summaries = page.locator('details.bo-chart__table > summary');
  await expect(summaries).toHaveCount(2);
  for (const summary of await summaries.all()) await summary.click();
  const today = new Date().toISOString().slice(0, 10);
  const todayIn = (table: string) => page.getByRole('table', { name: table }).getByRole('row').filter({ has: page.locator(`time[datetime="${today}"]`) });
  const charts = page.locator('.bo-chart__canvas canvas');
  for (const width of [1366, 390]) {
    await page.setViewportSize(viewportOf(width));
    await expect(totals).toContainText(/GHS\s?287\.00/);
    await expect(charts).toHaveCount(2);
    await expect(todayIn('Collections per day by payment method')).toContainText(/GHS\s?185\.00/);
    await expect(todayIn('Sessions per day by how they ended')).toBeVisible();
    // The charts follow the new width (ResizeObserver); nothing is wider than the page or its box.
    await expect.poll(() => charts.evaluateAll((cs) => Math.max(...cs.map((c) => c.getBoundingClientRect().right))), { message: `${width} px: charts within the page` }).toBeLessThanOrEqual(width);
    await noSidewaysScroll(page);
    const tooWide = await page.locator('table').evaluateAll((ts) => ts.filter((t) => t.getBoundingClientRect().width > (t.parentElement?.clientWidth ?? 0) + 1).map((t) => t.querySelector('caption')?.textContent ?? t.className));
    expect(tooWide, `${width} px: tables wider than their box`).toEqual([]);
    await shot(page, info, `overview-${width}`);
  }
});
