import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { adminCli, shot, TELLER, call, signInWithForm } from './support';

/**
 * The review queue's single-key shortcuts on two more screens, by the same rules (never while
 * typing in a field or under a dialog, `?` lists them): the teller's cash desk (`s` or `/` back to
 * the slip field, `c` the camera) and the finance exceptions list (`j`/`k` through the items, `r`
 * resolve, `i` ignore, `o` open the invoice).
 */
const PASSWORD = 'e2e-shortcuts-pass-1234';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;


const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

async function noSeriousViolations(page: Page, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `${screen}: serious or critical accessibility violations`).toEqual([]);
}

/** A cash slip for a new session of the merchant: its token (what a scanner types) and the total to count. */
async function slipFor(key: string, invoiceRef: string): Promise<{ token: string; total: number }> {
  const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 4_000, invoice_ref: invoiceRef, currency: 'GHS' }, key);
  const quote = await call<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
  const slip = await call<{ slip_token: string }>('/api/v1/checkout/cash-slips', { session_id: s.id, amount_minor: quote.surcharges.cash.total_minor });
  return { token: slip.slip_token, total: quote.surcharges.cash.total_minor };
}

async function paidSession(key: string, invoiceRef: string, amount: number): Promise<void> {
  const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: amount, invoice_ref: invoiceRef, currency: 'GHS' }, key);
  const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
  await call(`/api/v1/checkout/sessions/${s.id}/card-payments`, { amount_minor: quote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });
}

test.skip(({ isMobile }) => isMobile, 'shortcuts are for a keyboard: the desktop project');

test('cash desk: s and / go back to the slip field, c opens and closes the camera, ? lists them; typed letters stay text', async ({ page }, info) => {
  test.setTimeout(90_000);
  const m = adminCli(['integration:create', '--merchant', `Desk Keys ${run}`]);
  const teller = `sk.teller.${run}`;
  adminCli(['staff:create', '--username', teller, '--password', PASSWORD, '--role', 'teller', '--branch', TELLER.branchCode]);
  const first = await slipFor(m.api_key!, `SK-DESK-1-${run}`);
  const second = await slipFor(m.api_key!, `SK-DESK-2-${run}`);

  await signIn(page, teller);
  await page.goto('/backoffice/teller/scan');
  const scan = page.getByLabel('Slip barcode or reference');
  await expect(scan).toBeFocused();
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  // In the field every key is text: "s", "c", "/" and "?" are typed, nothing opens.
  await page.keyboard.type('sc/?');
  await expect(scan).toHaveValue('sc/?');
  await expect(help).toBeHidden();
  await expect(page.getByRole('button', { name: 'Close the camera' })).toBeHidden();
  await scan.fill('');

  // Out of the field: ? opens the help (a modal dialog holding focus), Escape closes it, focus goes back.
  await page.getByRole('heading', { name: 'Cash desk' }).click();
  await page.keyboard.press('?');
  await expect(help).toBeVisible();
  await expect(help.getByRole('button', { name: 'Close' })).toBeFocused();
  await expect(help.getByRole('row', { name: /s \/ Go to the slip field/ })).toBeVisible();
  await expect(help.getByRole('row', { name: /c Open or close the camera scanner/ })).toBeVisible();
  await expect(help).toContainText('Escape clears the slip or receipt on screen');
  await page.keyboard.press('s'); // a shortcut under the dialog does nothing
  await expect(scan).not.toBeFocused();
  await noSeriousViolations(page, 'cash desk with the shortcuts help open');
  await shot(page, info, 'shortcuts-desk-help', { fullPage: false });
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  // The button beside the title opens it too.
  await page.getByRole('button', { name: /Keyboard shortcuts/ }).click();
  await expect(help).toBeVisible();
  await help.getByRole('button', { name: 'Close' }).click();
  await expect(help).toBeHidden();

  // c opens the camera scanner and closes it again.
  await page.getByRole('heading', { name: 'Cash desk' }).click();
  await page.keyboard.press('c');
  await expect(page.getByRole('button', { name: 'Close the camera' })).toBeVisible();
  await page.getByRole('heading', { name: 'Cash desk' }).click();
  await page.keyboard.press('c');
  await expect(page.getByRole('button', { name: 'Scan with the camera' })).toBeVisible();

  // The whole desk by keyboard: scan, count, record; the receipt's Print takes focus; s goes back to scan the next.
  await page.getByRole('heading', { name: 'Cash desk' }).click();
  await page.keyboard.press('s');
  await expect(scan).toBeFocused();
  await page.keyboard.type(first.token);
  await page.keyboard.press('Enter');
  const counted = page.locator('#counted');
  await expect(counted).toBeFocused();
  await page.keyboard.type((first.total / 100).toFixed(2));
  await page.keyboard.press('Enter');
  const printButton = page.getByRole('button', { name: /Print/ }).first();
  await expect(printButton).toBeFocused();
  await page.keyboard.press('/');
  await expect(scan).toBeFocused();
  // The field's text is selected: the next scan replaces it.
  await page.keyboard.type(second.token);
  await expect(scan).toHaveValue(second.token);
  await page.keyboard.press('Enter');
  await expect(counted).toBeFocused();
  await shot(page, info, 'shortcuts-desk-next-slip', { fullPage: false });
});

test('exceptions: j and k move through the items, r resolves with a note, i ignores, o opens the invoice, ? lists them', async ({ page }, info) => {
  test.setTimeout(90_000);
  const m = adminCli(['integration:create', '--merchant', `Exception Keys ${run}`]);
  const finance = `sk.fin.${run}`;
  adminCli(['staff:create', '--username', finance, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  const key = m.api_key!;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates' }] }, key);
  const twice = `SK-TWICE-${run}`;
  const part = `SK-PART-${run}`;
  for (const ref of [twice, part]) await call('/api/v1/invoice-lines', { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'RATES', amount_minor: 12_000 }] }, key);
  await paidSession(key, twice, 12_000);
  await paidSession(key, twice, 12_000);
  await paidSession(key, part, 3_000);

  await signIn(page, finance);
  await page.goto('/backoffice/exceptions');
  await expect(page.getByRole('tab', { name: 'Open (2)' })).toBeVisible();
  const items = page.getByTestId('exceptions-list').locator('.bo-exc-items > li');
  await expect(items).toHaveCount(2);
  const refs = await Promise.all([0, 1].map(async (i) => ((await items.nth(i).locator('[data-testid^="exception-"]').getAttribute('data-testid')) ?? '').replace('exception-', '')));
  const current = () => page.evaluate(() => document.activeElement?.closest('[data-testid^="exception-"]')?.getAttribute('data-testid')?.replace('exception-', '') ?? null);

  // j: the first item's Resolve; j again the second; k back; never past either end.
  await page.getByRole('heading', { name: 'Exceptions', level: 1 }).click();
  await page.keyboard.press('j');
  await expect(page.locator(':focus')).toHaveText('Resolve…');
  expect(await current()).toBe(refs[0]);
  await page.keyboard.press('j');
  expect(await current()).toBe(refs[1]);
  await page.keyboard.press('j');
  expect(await current()).toBe(refs[1]);
  await page.keyboard.press('k');
  expect(await current()).toBe(refs[0]);
  await shot(page, info, 'shortcuts-exceptions-item-focused', { fullPage: false });

  // ? lists the keys; a key under the dialog does nothing.
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help.getByRole('row', { name: /j Next item/ })).toBeVisible();
  await expect(help.getByRole('row', { name: /r Resolve the current item/ })).toBeVisible();
  await page.keyboard.press('r');
  await expect(page.getByRole('dialog', { name: new RegExp(`^Resolve: invoice`) })).toBeHidden();
  await noSeriousViolations(page, 'exceptions with the shortcuts help open');
  await shot(page, info, 'shortcuts-exceptions-help', { fullPage: false });
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  expect(await current()).toBe(refs[0]);

  // i: the Ignore dialog for the current item, its note taking the keyboard; Escape backs out, nothing changes.
  await page.keyboard.press('i');
  const ignore = page.getByRole('dialog', { name: `Ignore: invoice ${refs[0]}` });
  await expect(ignore).toBeVisible();
  await expect(ignore.getByLabel('Note (required)')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(ignore).toBeHidden();
  await expect(page.getByRole('tab', { name: 'Open (2)' })).toBeVisible();

  // r on the second item: the note is typed (letters are text there), then Tab to Resolve and Enter.
  await page.getByRole('heading', { name: 'Exceptions', level: 1 }).click();
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  expect(await current()).toBe(refs[1]);
  await page.keyboard.press('r');
  const resolve = page.getByRole('dialog', { name: `Resolve: invoice ${refs[1]}` });
  await expect(resolve).toBeVisible();
  await expect(resolve.getByLabel('Note (required)')).toBeFocused();
  await page.keyboard.type('jk refund arranged');
  await expect(resolve.getByLabel('Note (required)')).toHaveValue('jk refund arranged');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(resolve.getByRole('button', { name: 'Resolve' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: `Invoice ${refs[1]}: resolved.` })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Open (1)' })).toBeVisible();

  // On a resolved item r says to reopen it first, and opens nothing.
  await page.getByRole('tab', { name: /^All/ }).click();
  await expect(items).toHaveCount(2);
  await page.getByRole('heading', { name: 'Exceptions', level: 1 }).click();
  const resolvedAt = (await Promise.all([0, 1].map(async (i) => (await items.nth(i).textContent())?.includes('Reopen')))).indexOf(true);
  for (let i = 0; i <= resolvedAt; i++) await page.keyboard.press('j');
  await expect(page.locator(':focus')).toHaveText('Reopen…');
  await page.keyboard.press('r');
  await expect(page.getByRole('status').filter({ hasText: `Invoice ${refs[1]} is resolved: reopen it first.` })).toBeVisible();
  await expect(page.getByRole('dialog', { name: /^Resolve: invoice/ })).toBeHidden();

  // o: the current item's invoice.
  await page.keyboard.press('o');
  await expect(page).toHaveURL(new RegExp(`/backoffice/finance/invoices/${encodeURIComponent(refs[1]!)}$`));
});
