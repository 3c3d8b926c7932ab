import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { invoicesWithExceptions, merchantWithFinance, newSession, payByCard, runTag, shot, signInWithForm, viewportOf } from './support';

/**
 * The finance exceptions screen against the real server: an invoice paid twice and one paid in
 * part show up with what happened, the amounts and links to the sessions; the CSV has them too.
 * At a phone's 390 px and the counter's 1366 px, one browser for both.
 */
const PASSWORD = 'e2e-exceptions-pass';

test.skip(({ isMobile }) => isMobile, 'both widths are set here, from the desktop project');

for (const width of [390, 1366] as const) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: viewportOf(width) });

    test('finance sees an invoice paid twice and a part-payment on the exceptions screen, opens a session, exports CSV', async ({ page }, info) => {
      const tag = `${runTag(info)}.${width}`;
      const username = `exc.fin.${tag}`;
      const { key } = merchantWithFinance(`Exceptions Co ${tag}`, username, PASSWORD);
      const twice = `EXC-TWICE-${tag}`;
      const part = `EXC-PART-${tag}`;
      const [first, second] = await invoicesWithExceptions(key, twice, part);

      await signInWithForm(page, username, PASSWORD);
      // On a phone the menu is folded behind its button: opened to read or follow it, closed again.
      const menu = page.getByRole('button', { name: 'Menu' });
      const nav = page.getByRole('navigation', { name: 'Back office' });
      const expectMenuCount = async (count: RegExp) => {
        const folded = await menu.isVisible();
        if (folded) await menu.click();
        await expect(nav.getByTestId('nav-count-exceptions')).toHaveText(count);
        if (folded) await menu.click();
      };
      if (await menu.isVisible()) await menu.click();
      await nav.getByRole('link', { name: /^Exceptions/ }).click();

      // One work item per invoice: the invoice paid twice (paid twice + over-paid merged) and the part-paid one.
      await expect(page.getByRole('tab', { name: 'Open (2)' })).toBeVisible();
      await expectMenuCount(/^2/);
      const twiceItem = page.getByTestId(`exception-${twice}`);
      await expect(twiceItem).toContainText('Paid twice');
      await expect(twiceItem).toContainText('Over-paid');
      await expect(twiceItem).toContainText('120.00'); // billed
      await expect(twiceItem).toContainText('240.00'); // collected
      await expect(twiceItem).toContainText('in 2 payments');
      await expect(page.getByTestId(`exception-${part}`)).toContainText('90.00 still outstanding');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'the page scrolls sideways').toBeLessThanOrEqual(0);
      await shot(page, info, `bo-30-exceptions-${width}`);

      // Resolving needs a note; then the item leaves the open list and the menu count drops.
      await twiceItem.getByRole('button', { name: 'Resolve…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Resolve' }).click();
      await expect(dialog.getByText('Write a note')).toBeVisible();
      await dialog.getByLabel('Note (required)').fill('Refunded the second payment');
      await dialog.getByRole('button', { name: 'Resolve' }).click();
      await expect(page.getByRole('tab', { name: 'Open (1)' })).toBeVisible();
      await expectMenuCount(/^1/);
      await page.getByRole('tab', { name: /Resolved/ }).click();
      await expect(page.getByTestId(`exception-${twice}`)).toContainText('Refunded the second payment');
      await expect(page.getByTestId(`exception-${twice}`)).toContainText(`by ${username}`);
      await page.getByRole('tab', { name: /^All/ }).click();

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const csv = readFileSync(await (await download).path(), 'utf8');
      expect(csv.split('\r\n')[0]).toContain('detected_at,kind,invoice_ref');
      expect(csv).toContain(`paid_twice,${twice}`);
      expect(csv).toContain(first);
      expect(csv).toContain(',-9000,'); // the part-payment's outstanding difference, a number

      // Paid against an invoice with no lines: the invoice says nothing was billed and what was collected.
      const unbilled = `EXC-NONE-${tag}`;
      await payByCard((await newSession(key, unbilled, 5_000)).id);
      await page.goto(`/backoffice/finance/invoices/${encodeURIComponent(unbilled)}`);
      await expect(page.getByTestId('invoice-truth')).toContainText(/GHS\s?50\.00 was collected against nothing billed\./);

      // The over-paid invoice says so, with the amount and a link to its exception, without sideways scrolling.
      await page.goto(`/backoffice/finance/invoices/${twice}`);
      await expect(page.getByTestId('invoice-truth')).toContainText('collected GHS 120.00 more than it billed');
      await expect(page.locator('.bo-stat').filter({ hasText: 'Over-paid' }).first()).toContainText('120.00');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'the page scrolls sideways').toBeLessThanOrEqual(0);
      await shot(page, info, `bo-31-invoice-overpaid-${width}`);
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

      // Ignoring needs a note as well; the item is then listed under Ignored, with it.
      await page.goto('/backoffice/exceptions');
      const partItem = page.getByTestId(`exception-${part}`);
      await partItem.getByRole('button', { name: 'Ignore…' }).click();
      const ignore = page.getByRole('dialog', { name: `Ignore: invoice ${part}` });
      await ignore.getByRole('button', { name: 'Ignore', exact: true }).click();
      await expect(ignore.getByText('Write a note')).toBeVisible();
      await ignore.getByLabel('Note (required)').fill('The rest is paid at the counter next month');
      await ignore.getByRole('button', { name: 'Ignore', exact: true }).click();
      await expect(ignore).toBeHidden();
      await page.getByRole('tab', { name: /^Ignored/ }).click();
      await expect(partItem).toContainText('The rest is paid at the counter next month');
    });
  });
}
