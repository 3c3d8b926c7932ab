import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, cashSlip, createStaff, expectDialogWithinViewport, expectNoSeriousViolations, invoicesWithExceptions, merchantWithFinance, newSession, runTag, shot, signInWithForm, viewportOf } from './support';
import { budgetNow } from '../support/pace';

/**
 * The review queue's single-key shortcuts on two more screens, by the same rules (never while
 * typing in a field or under a dialog, `?` lists them): the teller's cash desk (`s` or `/` back to
 * the slip field, `c` the camera) and the finance exceptions list (`j`/`k` through the items, `r`
 * resolve, `i` ignore, `o` open the invoice). At a phone's 390 px (a hardware keyboard on a
 * phone or a small tablet) and at the counter's 1366 px, one browser for both.
 */
const PASSWORD = 'e2e-shortcuts-pass-1234';

const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

/** A cash slip for a new session of the merchant: its token (what a scanner types) and the total to count. */
async function slipFor(key: string, invoiceRef: string): Promise<{ token: string; total: number }> {
  const slip = await cashSlip((await newSession(key, invoiceRef, 4_000)).id);
  return { token: slip.slip_token, total: slip.amount_minor };
}

test.skip(({ isMobile }) => isMobile, 'both widths are set here, from the desktop project');

for (const width of [390, 1366] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: viewportOf(width) });

    test('cash desk: s and / go back to the slip field, c opens and closes the camera, ? lists them; typed letters stay text', async ({ page }, info) => {
      test.setTimeout(budgetNow(90_000));
      const tag = `${runTag(info)}.${width}`;
      const key = adminCli(['integration:create', '--merchant', `Desk Keys ${tag}`]).api_key!;
      const teller = `sk.teller.${tag}`;
      createStaff(teller, 'teller', { password: PASSWORD });
      const first = await slipFor(key, `SK-DESK-1-${tag}`);
      const second = await slipFor(key, `SK-DESK-2-${tag}`);

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
      await expectDialogWithinViewport(page, help);
      await expect(help.getByRole('row', { name: /s \/ Go to the slip field/ })).toBeVisible();
      await expect(help.getByRole('row', { name: /c Open or close the camera scanner/ })).toBeVisible();
      await expect(help).toContainText('Escape clears the slip or receipt on screen');
      await page.keyboard.press('s'); // a shortcut under the dialog does nothing
      await expect(scan).not.toBeFocused();
      await expectNoSeriousViolations(page, 'cash desk with the shortcuts help open');
      await shot(page, info, `shortcuts-desk-help-${width}`, { fullPage: false });
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
      await shot(page, info, `shortcuts-desk-next-slip-${width}`, { fullPage: false });
    });

    test('exceptions: j and k move through the items, r resolves with a note, i ignores, o opens the invoice, ? lists them', async ({ page }, info) => {
      test.setTimeout(budgetNow(90_000));
      const tag = `${runTag(info)}.${width}`;
      const finance = `sk.fin.${tag}`;
      const { key } = merchantWithFinance(`Exception Keys ${tag}`, finance, PASSWORD);
      await invoicesWithExceptions(key, `SK-TWICE-${tag}`, `SK-PART-${tag}`);

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
      await shot(page, info, `shortcuts-exceptions-item-focused-${width}`, { fullPage: false });

      // ? lists the keys; a key under the dialog does nothing.
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await expect(help).toBeVisible();
      await expect(help.getByRole('row', { name: /j Next item/ })).toBeVisible();
      await expectDialogWithinViewport(page, help);
      await expect(help.getByRole('row', { name: /r Resolve the current item/ })).toBeVisible();
      await page.keyboard.press('r');
      await expect(page.getByRole('dialog', { name: new RegExp(`^Resolve: invoice`) })).toBeHidden();
      await expectNoSeriousViolations(page, 'exceptions with the shortcuts help open');
      await shot(page, info, `shortcuts-exceptions-help-${width}`, { fullPage: false });
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
  });
}
