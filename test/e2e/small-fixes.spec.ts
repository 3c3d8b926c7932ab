import { expect, test } from '@playwright/test';
import { checkoutPath, createSession } from './support';

/** Issue 15 #20: small things a payer or a clerk notices at once. */
test('both apps have a favicon', async ({ page }) => {
  for (const path of ['/backoffice/', checkoutPath(await createSession())]) {
    await page.goto(path);
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', /^data:image\/svg\+xml,/);
  }
});

test('on a phone the method picker keeps each method\'s description', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(checkoutPath(await createSession()));
  const hints = page.locator('.method-hint');
  await expect(hints.first()).toBeVisible();
  for (const hint of await hints.all()) {
    await expect(hint).toBeVisible();
    await expect(hint).not.toBeEmpty();
  }
});

