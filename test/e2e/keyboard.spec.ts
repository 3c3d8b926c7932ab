import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, atCounterWidth, call, cashSlip, createStaff, expectDialogWithinViewport, expectNoSeriousViolations, localDay, runTag, shot, shotsAtBothWidths as shots, signInWithForm, staffToken } from './support';
import { budgetNow } from '../support/pace';

/**
 * The back office by keyboard and in words: the review queue's shortcuts and their help, tabs
 * with arrow keys, the supervisor's waiting count, an export followed and cancelled, amounts,
 * fees and net in words. At 1366 px (desktop project) and 390 px (mobile project).
 */
const PASSWORD = 'e2e-keys-pass-1234';
const login = (u: string) => staffToken(u, PASSWORD);
const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

test.describe.serial('keyboard, tabs, waiting count, export and words', () => {
  // Several screens, sign-ins and axe scans per test, beside other browsers on a shared machine.
  test.describe.configure({ timeout: 150_000 });
  test.beforeEach(atCounterWidth);
  // Each project and repetition has its own staff, merchant and sessions (letters and digits: part of session ids below).
  let run = '';
  const USERS = { teller: '', supervisor: '', finance: '', admin: '' };
  /** Paid sessions written straight into the database: an export long enough to watch. */
  const BULK = 6_000;
  let apiKey = '';
  const slips: string[] = [];

  test.beforeAll(async ({ browserName: _browser }, info) => {
    test.setTimeout(budgetNow(180_000));
    run = runTag(info).replace(/[^A-Za-z0-9]/g, '');
    const a = adminCli(['integration:create', '--merchant', `Keys Water ${run}`]);
    apiKey = a.api_key!;
    Object.assign(USERS, { teller: `ky.teller.${run}`, supervisor: `ky.super.${run}`, finance: `ky.fin.${run}`, admin: `ky.admin.${run}` });
    for (const role of ['teller', 'supervisor', 'finance', 'admin'] as const) createStaff(USERS[role], role, { password: PASSWORD, merchantId: role === 'finance' ? a.merchant_id! : undefined });
    const teller = await login(USERS.teller);
    // Two deposits of this teller waiting for review.
    for (const n of [1, 2]) {
      const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 18_700 + n, invoice_ref: `KEY-${run}-${n}`, customer: { name: `Kwame Keys ${n}` } }, apiKey);
      const slip = await cashSlip(s.id);
      await call(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor }, teller);
      slips.push(slip.reference);
    }
    // Copies of one session, paid half a second apart within the last hour (the newest ten minutes
    // ago, never in the future): the export has BULK rows to write.
    const template = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 5_000, invoice_ref: `KEY-${run}-BULK`, customer: { name: 'Bulk Payer' } }, apiKey);
    const db = new Database(join(process.env.PAYDESK_E2E_DATA_DIR!, 'paydesk.sqlite'));
    try {
      db.pragma('busy_timeout = 10000');
      const cols = (db.prepare('PRAGMA table_info(checkout_sessions)').all() as Array<{ name: string }>).map((c) => c.name);
      const now = Date.now();
      const set: Record<string, string> = {
        id: `'cs_test_keys${run}_' || n`,
        invoice_ref: `'KEY-${run}-B' || n`,
        status: `'success'`,
        paid_rail: `'card'`,
        created_at: `strftime('%Y-%m-%dT%H:%M:%fZ', (${now} - 3600000 + n * 500) / 1000.0, 'unixepoch')`,
        updated_at: `strftime('%Y-%m-%dT%H:%M:%fZ', (${now} - 3600000 + n * 500) / 1000.0, 'unixepoch')`,
        finalized_at: `strftime('%Y-%m-%dT%H:%M:%fZ', (${now} - 3600000 + n * 500) / 1000.0, 'unixepoch')`,
      };
      const select = cols.map((c) => set[c] ?? c).join(', ');
      db.prepare(
        `WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ${BULK}) INSERT INTO checkout_sessions (${cols.join(', ')}) SELECT ${select} FROM checkout_sessions, k WHERE id = ?`,
      ).run(template.id);
    } finally {
      db.close();
    }
  });

  test('a supervisor reaches the first Approve by skip link and j; shortcuts act on the queue and never while typing', async ({ page }, info) => {
    await signIn(page, USERS.supervisor);
    const sup = await login(USERS.supervisor);
    // The waiting count, in the menu and on the landing page, read as a sentence and kept in step with the server.
    const counts = async () => (await call<{ deposits_waiting: number }>('/api/backoffice/v1/work-counts', undefined, sup)).deposits_waiting;
    const nav = page.getByRole('navigation', { name: 'Back office' });
    // On a phone the menu is folded behind its button.
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    await expect.poll(async () => (await nav.getByTestId('nav-count-review').textContent()) ?? '').toMatch(/^\d+ \(\d+ deposits? waiting for review\)$/);
    await expect(nav.getByRole('link', { name: /^Deposit review \(\d+ deposits? waiting for review\)$/ })).toBeVisible();
    if (await menu.isVisible()) await menu.click();
    await expect(page.getByTestId('waiting-deposits')).toContainText(/\d+ deposits? waiting for review/);
    await expect.poll(async () => Number(/(\d+) deposit/.exec((await page.getByTestId('waiting-deposits').textContent()) ?? '')?.[1]) === (await counts()), { timeout: 25_000 }).toBe(true);
    await shots(page, info, 'ky-01-home-waiting');

    // Skip link, Enter, j: focus on the first Approve of the queue (three key presses).
    await page.goto('/backoffice/review');
    await expect(page.getByTestId('review-queue-table')).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('j');
    const focused = page.locator(':focus');
    await expect(focused).toHaveAccessibleName(/^Approve slip /);
    await expect(focused).toHaveText('Approve');

    // ? opens the help: a modal dialog holding focus; Escape closes it and focus goes back.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(help).toBeVisible();
    await expect(help.getByRole('button', { name: 'Close' })).toBeFocused();
    await expect(help.getByRole('row', { name: /j Next deposit/ })).toBeVisible();
    await expectDialogWithinViewport(page, help);
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement === document.body || !!document.activeElement?.closest('dialog[open]'))).toBe(true);
    }
    await page.keyboard.press('a'); // a shortcut under the dialog does nothing
    await expect(page.getByRole('dialog', { name: 'Approve this deposit?' })).toBeHidden();
    await expectNoSeriousViolations(page, 'review queue with the shortcuts help open');
    await shots(page, info, 'ky-02-review-shortcuts-help');
    await page.keyboard.press('Escape');
    await expect(help).toBeHidden();
    await expect(page.locator(':focus')).toHaveAccessibleName(/^Approve slip /);
    // The button beside the title opens it as well.
    await page.getByRole('button', { name: /Keyboard shortcuts/ }).click();
    await expect(help).toBeVisible();
    await help.getByRole('button', { name: 'Close' }).click();
    await expect(help).toBeHidden();

    // This teller's deposits only (other tests' deposits are theirs to review).
    await page.getByLabel('Teller').selectOption({ label: USERS.teller });
    const queue = page.getByTestId('review-queue-table');
    await expect(queue.locator('tbody tr')).toHaveCount(2);
    await page.getByRole('heading', { name: 'Deposit review' }).click(); // out of the select: keys are shortcuts again
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect(page.locator(':focus')).toHaveAccessibleName(`Approve slip ${await queue.locator('tbody tr').first().getByRole('link').textContent()}`);
    await shots(page, info, 'ky-03-review-row-focused');
    const first = (await queue.locator('tbody tr').first().getByRole('link').textContent())!;
    // a: the existing confirmation first; Enter confirms.
    await page.keyboard.press('a');
    const confirm = page.getByRole('dialog', { name: 'Approve this deposit?' });
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText(first);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: `Approved` })).toContainText(first);
    await expect(queue.locator('tbody tr')).toHaveCount(1);
    // r: the reject form, whose fields take letters as text.
    await page.getByRole('heading', { name: 'Deposit review' }).click();
    await page.keyboard.press('r');
    const form = page.getByRole('form', { name: /^Reject slip / });
    await expect(form.getByLabel('Reason')).toBeFocused();
    await form.getByLabel('Reason').selectOption('Other');
    await form.getByLabel(/Details/).focus();
    await page.keyboard.type('jar ok');
    await expect(form.getByLabel(/Details/)).toHaveValue('jar ok');
    await expect(page.getByRole('dialog', { name: 'Approve this deposit?' })).toBeHidden();
    await form.getByRole('button', { name: 'Reject deposit' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Rejected slip' })).toBeVisible();
    await expect(queue).toBeHidden();
    // The menu's count follows the server's.
    if (await menu.isVisible()) await menu.click();
    await expect.poll(async () => {
      const text = (await nav.getByTestId('nav-count-review').textContent({ timeout: 1000 }).catch(() => '0')) ?? '0';
      return Number(/^(\d+)/.exec(text)?.[1] ?? 0) === (await counts());
    }, { timeout: 25_000 }).toBe(true);
  });

  test('tabs: arrow keys, Home and End move and select; each tab labels its panel; the finance URLs still select tabs', async ({ page }, info) => {
    await signIn(page, USERS.admin);
    await page.goto('/backoffice/admin');
    const tabs = page.getByRole('tablist', { name: 'Administration sections' });
    await tabs.getByRole('tab', { name: 'Integrations' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(tabs.getByRole('tab', { name: 'Staff' })).toBeFocused();
    await expect(tabs.getByRole('tab', { name: 'Staff' })).toHaveAttribute('aria-selected', 'true');
    const panel = page.getByRole('tabpanel', { name: 'Staff' });
    await expect(panel).toBeVisible();
    await expect(tabs.getByRole('tab', { name: 'Staff' })).toHaveAttribute('aria-controls', (await panel.getAttribute('id'))!);
    await page.keyboard.press('End');
    await expect(tabs.getByRole('tab', { name: 'Sandbox' })).toBeFocused();
    await expect(page.getByRole('tabpanel', { name: 'Sandbox' })).toBeVisible();
    await page.keyboard.press('Home');
    await expect(tabs.getByRole('tab', { name: 'Integrations' })).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowLeft'); // wraps to the last
    await expect(tabs.getByRole('tab', { name: 'Sandbox' })).toHaveAttribute('aria-selected', 'true');
    await expect(tabs.getByRole('tab', { selected: false })).toHaveCount(3);
    await expectNoSeriousViolations(page, 'administration tabs');
    await shots(page, info, 'ky-04-admin-tabs');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, USERS.finance);
    await page.goto('/backoffice/finance/revenue-lines');
    const fin = page.getByRole('tablist', { name: 'Finance sections' });
    await expect(fin.getByRole('tab', { name: 'Revenue lines' })).toHaveAttribute('aria-selected', 'true');
    await fin.getByRole('tab', { name: 'Revenue lines' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(page).toHaveURL(/\/backoffice\/finance\/export$/);
    await expect(page.getByRole('tabpanel', { name: 'Reconciliation export' })).toBeVisible();
    await page.keyboard.press('Home');
    await expect(page).toHaveURL(/\/backoffice\/finance$/);
    await expect(page.getByRole('tabpanel', { name: 'Sessions' })).toBeVisible();
  });

  test('an export shows the payments written so far and stops on Cancel; run again, it downloads the whole file', async ({ page }, info) => {
    await signIn(page, USERS.finance);
    await page.goto('/backoffice/finance/export');
    const card = page.getByTestId('payments-export');
    // From the day two hours ago (the default, the first of the month, misses the last hour
    // just after midnight on the first) to today, both in the browser's zone, which is this one.
    await card.getByLabel('From').fill(localDay(new Date(Date.now() - 2 * 3_600_000)));
    let downloads = 0;
    page.on('download', () => downloads++);
    await card.getByRole('button', { name: 'Download CSV' }).click();
    const progress = card.getByTestId('export-progress');
    await expect(progress).toHaveText(/^Exporting: [\d,  ]+ payments? written so far…$/, { timeout: 30_000 }); // the first export starts the report worker
    await expect.poll(async () => Number(((await progress.textContent()) ?? '').replace(/\D/g, '')), { timeout: 30_000 }).toBeGreaterThan(0);
    await card.getByRole('button', { name: 'Cancel export' }).click();
    await expect(card.getByRole('status').filter({ hasText: 'Export cancelled' })).toHaveText(/^Export cancelled after [\d,  ]+ payments?\. No file was made\.$/);
    await expect(progress).toBeHidden();
    await expect(card.getByRole('button', { name: 'Cancel export' })).toBeHidden();
    await expectNoSeriousViolations(page, 'export cancelled');
    await shots(page, info, 'ky-06-export-cancelled');
    expect(downloads).toBe(0);

    const download = page.waitForEvent('download', { timeout: 90_000 });
    await card.getByRole('button', { name: 'Download CSV' }).click();
    // The running export as it looks (at this viewport only: it moves on while the picture is taken).
    await expect(progress).toBeVisible();
    await shot(page, info, 'ky-05-export-running');
    const csv = readFileSync(await (await download).path(), 'utf8').trimEnd().split('\r\n');
    expect(csv.length).toBeGreaterThanOrEqual(BULK + 1);
    // The cash payment approved above, its fee paid by the payer: amount, fee, what was collected and the net, each in its column.
    const head = csv[0]!.split(',');
    const cells = csv.find((l) => l.includes(`,KEY-${run}-1,`))!.split(',');
    const col = (name: string) => cells[head.indexOf(name)];
    expect([col('amount_minor'), col('fee_bearer'), col('net_minor')]).toEqual(['18701', 'payer', '18701']);
    expect(Number(col('collected_minor')) - Number(col('fee_minor'))).toBe(18_701);
    expect(Number(col('fee_minor'))).toBeGreaterThan(0);
    await expect(card.getByRole('status')).toHaveText(/^Downloaded [\d,  ]+ payments\.$/);
  });

  test('finance lists and details show fee, who paid it and net; the timeline reads as sentences', async ({ page }, info) => {
    await signIn(page, USERS.finance);
    await page.goto('/backoffice/finance');
    const list = page.getByTestId('sessions-list');
    await page.getByLabel('Search').fill(`KEY-${run}-B1`);
    const row = list.getByRole('row').filter({ hasText: `KEY-${run}-B1` }).first();
    await expect(row).toBeVisible();
    await expect(list.getByRole('columnheader', { name: 'Net to merchant' })).toBeAttached();
    await shots(page, info, 'ky-07-finance-sessions-net');
    await expectNoSeriousViolations(page, 'finance sessions');
    // A cash session approved above: its fee was added to what the payer paid.
    await page.getByLabel('Search').fill(`KEY-${run}-1`);
    const paid = list.getByRole('row').filter({ hasText: `KEY-${run}-1` }).first();
    await expect(paid).toContainText('paid by the payer');
    await paid.click();
    const detail = page.getByTestId('session-detail');
    await expect(detail).toContainText('Fee paid byThe payer (added to the amount)');
    await expect(detail).toContainText(/Net to the merchantGHS\s?187\.01/);
    await expect(detail.getByRole('button', { name: /^Copy session id cs_test_/ })).toBeVisible();
    const timeline = page.getByTestId('session-timeline');
    await expect(timeline).toContainText('Status changed from In progress to Paid');
    await expect(timeline).toContainText('Merchant notified: payment completed');
    await expect(timeline).not.toContainText(/→|checkout\.session\.|dep_[A-Za-z0-9]{6}/);
    await expect(timeline.getByRole('button', { name: /^Copy deposit id dep_/ }).first()).toBeVisible();
    await expectNoSeriousViolations(page, 'session detail');
    await shots(page, info, 'ky-08-session-detail-words');

    // The audit trail: the deposit's amount in its currency, not in minor units.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, USERS.admin);
    await page.goto('/backoffice/audit');
    await page.getByLabel('Staff member').fill(USERS.teller);
    const entry = page.getByTestId('audit-table').getByRole('row').filter({ hasText: 'Recorded a cash deposit' }).first();
    await expect(entry).toContainText(/amountGHS\s?\d+\.\d\d/);
    await expect(entry).not.toContainText(/amount\d/);
    await expectNoSeriousViolations(page, 'audit trail');
    await shots(page, info, 'ky-09-audit-words');
  });
});
