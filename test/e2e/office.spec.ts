import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, apiFetch, atCounterWidth, call, cashSlip, createStaff, localDay, runTag, shot, shotsAtBothWidths as shots, signInWithForm, staffToken } from './support';
import { budgetNow } from '../support/pace';

/**
 * Finance, audit, webhooks and administration as a finance clerk, a supervisor and an admin use
 * them: search the way a caller describes a payment, one set of
 * amounts, a readable audit trail, a delivery with its own address, confirmations before anything
 * irreversible, and the back office on a 390 px phone.
 */
const PASSWORD = 'e2e-office-pass-1234';
const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;
// Each repetition has its own staff, merchant and payments (letters and digits: searched for below).
let run = '';
let MERCHANT = '';
const USERS = { teller: '', supervisor: '', finance: '', admin: '' };

const login = (u: string) => staffToken(u, PASSWORD);

/** A receiver that always answers 500: its endpoint card turns Failing. */
function failingReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(500).end('down for maintenance')));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })));
}

const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

test.describe.serial('finance, audit, webhooks and administration screens', () => {
  test.skip(({ isMobile }) => isMobile, 'one run is enough: the 390 px checks set their own viewport');
  test.beforeEach(atCounterWidth);
  let apiKey = '';
  let paid: { session: string; invoice: string; slip: string; total: number };
  let review: { slip: string };
  let branchTeller: { username: string; bound: string };
  let receiver: Awaited<ReturnType<typeof failingReceiver>>;

  test.beforeAll(async ({ browserName: _browser }, info) => {
    test.setTimeout(budgetNow(180_000));
    run = runTag(info).replace(/[^A-Za-z0-9]/g, '');
    Object.assign(USERS, { teller: `of.teller.${run}`, supervisor: `of.super.${run}`, finance: `of.fin.${run}`, admin: `of.admin.${run}` });
    MERCHANT = `Office Water ${run}`;
    receiver = await failingReceiver();
    const a = adminCli(['integration:create', '--merchant', MERCHANT, '--webhook-url', receiver.url]);
    apiKey = a.api_key!;
    for (const role of ['teller', 'supervisor', 'finance', 'admin'] as const) createStaff(USERS[role], role, { password: PASSWORD, merchantId: role === 'finance' ? a.merchant_id! : undefined });
    const [teller, sup] = [await login(USERS.teller), await login(USERS.supervisor)];
    const bank = (await call<{ banks: Array<{ name: string; branches: Array<{ id: string; name: string }> }> }>('/api/backoffice/v1/admin/banks', undefined, await login(USERS.admin))).banks[0]!;
    branchTeller = { username: `of.branch.${run}`, bound: `${bank.name}, ${bank.branches[0]!.name}` };
    createStaff(branchTeller.username, 'teller', { password: PASSWORD, branch: bank.branches[0]!.id });
    const make = async (invoice: string, name: string) => {
      const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 12_345, invoice_ref: invoice, customer: { name } }, apiKey);
      const slip = await cashSlip(s.id);
      const dep = await call<{ deposit: { id: string } }>(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor }, teller);
      return { session: s.id, invoice, slip: slip.reference, total: slip.amount_minor, deposit: dep.deposit.id };
    };
    const p = await make(`OFF-${run}-WATER`, 'Efua Asante');
    await call(`/api/backoffice/v1/deposits/${p.deposit}/approve`, {}, sup);
    paid = p;
    review = await make(`OFF-${run}-REVIEW`, 'Kojo Mensah');
  });
  test.afterAll(async () => {
    await new Promise((r) => receiver.server.close(r));
  });

  test('finance finds a payment the way a caller describes it, with base, fee and collected amount alike everywhere', async ({ page }, info) => {
    await signIn(page, USERS.finance);
    await page.getByRole('link', { name: 'Finance', exact: true }).click();
    const list = page.getByTestId('sessions-list');
    const fee = paid.total - 12_345;
    const money = (minor: number) => `GHS\u00a0${(minor / 100).toFixed(2)}`;
    for (const words of ['asante', paid.slip.toLowerCase().replace(/-/g, ' '), `${run}-WAT`, paid.session.slice(0, 20)]) {
      await page.getByLabel('Search').fill(words);
      await expect(list.locator('tbody tr'), words).toHaveCount(1);
      await expect(list.locator('tbody tr')).toContainText(paid.invoice);
    }
    const row = list.locator('tbody tr');
    await expect(row.locator('td[data-label="Amount"]')).toHaveText(money(12_345));
    await expect(row.locator('td[data-label="Fee"]')).toHaveText(`${money(fee)}paid by the payer`);
    await expect(row.locator('td[data-label="Collected"]')).toHaveText(money(paid.total));
    await shots(page, info, 'of-01-finance-search');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Amount').fill('lots');
    await expect(page.getByText('“lots” is not an amount: type it like 1,234.50.')).toBeVisible(); // in the browser's en-US format
    await page.getByLabel('Amount').fill((paid.total / 100).toFixed(2));
    await expect(list.locator('tbody tr')).toHaveCount(1);
    // Under 3 characters the search takes whole invoice refs only, and the box says so.
    await page.getByLabel('Search').fill('as');
    await expect(page.getByText('Type at least 3 characters to search names (shorter: a whole invoice ref)')).toBeVisible();
    await expect(list).toContainText('Nothing matches these filters');
    await page.getByLabel('Search').fill('no such payer anywhere');
    await expect(page.getByText('Type at least 3 characters to search names')).toHaveCount(0);
    await expect(list).toContainText('Nothing matches these filters');
    await page.getByRole('button', { name: 'Clear filters' }).click();

    await page.getByLabel('Search').fill(paid.invoice);
    await expect(list.locator('tbody tr')).toHaveCount(1);
    await list.locator('tbody tr').click();
    const detail = page.getByTestId('session-detail');
    await expect(detail).toContainText(`Fee${money(fee)}`);
    await expect(detail).toContainText(money(paid.total));
    await expect(page.getByTestId('session-timeline')).toContainText(`${money(paid.total)} charged · cash fee ${money(fee)} paid by the payer · ${money(12_345)} to the merchant`);
    await shots(page, info, 'of-02-finance-detail');

    await page.getByRole('tab', { name: 'Reconciliation export' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8').trim().split('\r\n');
    const head = csv[0]!.split(',');
    const cells = csv.find((l) => l.includes(paid.session))!.split(',');
    const col = (n: string) => cells[head.indexOf(n)];
    expect([col('amount'), col('fee'), col('collected')]).toEqual([(12_345 / 100).toFixed(2), (fee / 100).toFixed(2), (paid.total / 100).toFixed(2)]);

    // Deactivating a revenue line asks first and says what it does.
    await call('/api/v1/revenue-lines', { lines: [{ code: 'WTR', name: 'Water' }], deactivate_missing: false }, apiKey);
    await page.getByRole('tab', { name: 'Revenue lines' }).click();
    await page.getByRole('button', { name: 'Deactivate WTR Water' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deactivate WTR?' });
    await expect(dialog).toContainText('New invoice lines with this code are refused');
    await shots(page, info, 'of-03-revenue-line-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('revenue-lines').locator('tbody tr').filter({ hasText: 'WTR' })).toContainText('Active');
    await page.getByRole('button', { name: 'Deactivate WTR Water' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await expect(page.getByTestId('revenue-lines').locator('tbody tr').filter({ hasText: 'WTR' })).toContainText(/inactive/i);
  });

  test('the audit trail reads in words, by name, with a date range and a CSV export', async ({ page }, info) => {
    await signIn(page, USERS.admin);
    await page.getByRole('link', { name: 'Audit trail', exact: true }).click();
    const audit = page.getByTestId('audit-list');
    await page.getByLabel('Action').selectOption({ label: 'Approved a cash deposit' });
    const approved = audit.locator('tbody tr').filter({ hasText: paid.slip }).filter({ hasText: 'Approved a cash deposit' });
    await expect(approved).toContainText('Approved a cash deposit');
    await expect(approved).toContainText(`on slip ${paid.slip}`);
    await expect(approved.locator('del').first()).toHaveText('Waiting for review');
    await expect(approved.locator('ins').first()).toHaveText('Approved');
    await shots(page, info, 'of-04-audit');
    await page.getByLabel('From').fill(localDay(new Date(Date.now() + 86_400_000))); // tomorrow
    await expect(audit).toContainText('Nothing matches these filters');
    await page.getByLabel('From').fill('');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toBe('at,staff,role,ip,action,action_code,target,target_type,target_id,before,after,time_zone');
    expect(csv).toContain(`Approved a cash deposit,deposit.approve,Deposit of GHS`);
  });

  test('webhooks: whose endpoint, why Failing, filter by endpoint, a delivery with its own address', async ({ page }, info) => {
    await signIn(page, USERS.admin);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    // Matched by merchant too: an endpoint of another spec may name the same (reused) port.
    const card = page.getByTestId('endpoint-health').locator('.wh-health__card').filter({ hasText: receiver.url }).filter({ hasText: MERCHANT });
    await expect(card).toContainText(/in a row failed/);
    await page.getByLabel('Endpoint').selectOption({ label: `${MERCHANT}: ${receiver.url}` });
    const log = page.getByTestId('delivery-log');
    const rows = log.locator('tbody tr');
    await expect(rows.first()).toContainText(MERCHANT);
    await expect(rows.filter({ hasNotText: receiver.url })).toHaveCount(0);
    await shots(page, info, 'of-05-webhooks');
    await rows.first().click();
    await expect(page).toHaveURL(/\/backoffice\/webhooks\/deliveries\/.+/);
    await expect(page.getByTestId('delivery-detail')).toContainText(receiver.url);
    await shots(page, info, 'of-06-webhooks-delivery');
    await page.goBack();
    await expect(page).toHaveURL(/\/backoffice\/webhooks$/);
    await expect(page.getByTestId('delivery-detail')).toHaveCount(0);
  });

  test('administration: named keys with last use, confirmations before revoke and disable, Bound to names the bank', async ({ page }, info) => {
    await signIn(page, USERS.admin);
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await page.getByRole('button', { name: `Manage ${MERCHANT} integration` }).click();
    const card = page.getByTestId('integration-card').filter({ hasText: MERCHANT });
    await card.getByLabel('Key name (where it is used)').fill('Billing server');
    await card.getByRole('button', { name: 'Create API key' }).click();
    const banner = card.getByTestId('secret-once');
    await expect(banner).toContainText(`API key “Billing server” for ${MERCHANT}`);
    const key = (await banner.locator('code').innerText()).trim();
    await shots(page, info, 'of-07-admin-key-once');
    await card.getByRole('button', { name: 'Done' }).click();
    const keyRow = card.locator('tbody tr').filter({ hasText: 'Billing server' });
    await expect(keyRow).toContainText('Never');
    await call('/api/v1/revenue-lines', undefined, key);
    await page.getByRole('tab', { name: 'Staff' }).click();
    await page.getByRole('tab', { name: 'Integrations' }).click();
    await page.getByRole('button', { name: `Manage ${MERCHANT} integration` }).click();
    await expect(keyRow.locator('td[data-label="Last used"]')).not.toHaveText('Never');

    await keyRow.getByRole('button', { name: 'Revoke key Billing server' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('Requests with this key will get 401 at once');
    await expect(dialog.getByRole('button', { name: 'Revoke key' })).toBeFocused();
    await shots(page, info, 'of-08-admin-revoke-confirm');
    await page.keyboard.press('Escape');
    await expect(keyRow).toContainText(/active/i);
    await keyRow.getByRole('button', { name: 'Revoke key Billing server' }).click();
    await page.keyboard.press('Enter');
    await expect(keyRow).toContainText(/revoked/i);
    expect((await apiFetch(`${API}/api/v1/revenue-lines`, { headers: { authorization: `Bearer ${key}`, connection: 'close' } })).status).toBe(401);

    await card.getByRole('button', { name: `Disable endpoint ${receiver.url}` }).click();
    await expect(page.getByRole('dialog')).toContainText('receives no more events');
    await page.getByRole('dialog').getByRole('button', { name: 'Disable endpoint' }).click();
    await expect(card.locator('tbody tr').filter({ hasText: receiver.url })).toContainText(/disabled/i);

    await page.getByRole('tab', { name: 'Staff' }).click();
    const teller = branchTeller.username;
    const staffRow = page.getByTestId('staff-table').locator('tbody tr').filter({ hasText: teller });
    // Other specs add staff to the same database: page through the list until the teller shows.
    const next = page.getByTestId('staff-list').getByRole('group', { name: 'Pages' }).getByRole('button', { name: 'Next' });
    for (let i = 0; i < 20 && (await staffRow.count()) === 0 && (await next.isEnabled()); i++) await next.click();
    await expect(staffRow.locator('td[data-label="Bound to"]')).toHaveText(branchTeller.bound);
    await staffRow.getByRole('button', { name: `Disable ${teller}` }).click();
    await expect(page.getByRole('dialog')).toContainText('signed out at once');
    await shots(page, info, 'of-09-admin-staff-confirm');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(staffRow).toContainText(/active/i);

    // docs/sandbox.md describes this form: the payer's reference starts PDT.
    await page.getByRole('tab', { name: 'Sandbox' }).click();
    await expect(page.getByLabel('Payment reference')).toHaveAttribute('placeholder', 'PDT…');
    await expect(page.getByRole('button', { name: 'Confirm transfer' })).toBeVisible();
  });

  test('at 390 px the sidebar folds behind Menu and Approve / Reject are reached without scrolling sideways', async ({ page }, info) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, USERS.supervisor);
    const menu = page.getByRole('button', { name: 'Menu' });
    await expect(menu).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByRole('navigation', { name: 'Back office' })).toBeHidden();
    await menu.click();
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Deposit review' }).click();
    await expect(page.getByRole('navigation', { name: 'Back office' })).toBeHidden();
    const approve = page.getByRole('button', { name: `Approve slip ${review.slip}` });
    const reject = page.getByRole('button', { name: `Reject slip ${review.slip}` });
    for (const button of [approve, reject]) {
      await expect(button).toBeVisible();
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, info, 'of-10-review-390');
    await menu.click();
    await shot(page, info, 'of-11-menu-open-390');
  });
});
