import { expect, test } from '@playwright/test';
import { shot } from './support';

/**
 * The setup page of the first-run link, at 390 and 1366 px. The shared e2e server already has
 * staff, so its link is spent: the page must say a token is missing or refused, never create an
 * account (the link's whole life is tested against a fresh server in test/integration/serve.test.ts).
 */
test.skip(({ isMobile }) => isMobile, 'one browser visits both widths');

test('the setup page explains itself and refuses a link that is not the printed one', async ({ page }, info) => {
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/backoffice/setup');
    await expect(page.getByRole('heading', { name: 'Set up Paydesk' })).toBeVisible();
    await expect(page.getByText('This address has no setup token')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create administrator' })).toBeDisabled();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot(page, info, `bo-00-setup-${width}`);
  }
  await page.goto('/backoffice/setup#token=setup_not_the_printed_one');
  await page.getByLabel('Full name').fill('Someone Else');
  await page.getByLabel('Username').fill('someone.else');
  await page.getByLabel('Password (12+ characters)').fill('someone else pass 2026');
  await page.getByRole('button', { name: 'Create administrator' }).click();
  await expect(page.getByText('this setup link is not valid')).toBeVisible();
});
