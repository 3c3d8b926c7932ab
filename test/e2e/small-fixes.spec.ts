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


test('on a phone the order summary folds its details away after the first step', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await expect(page.getByTestId('invoice-ref')).toBeVisible();
  await page.getByRole('button', { name: /^Card/ }).click();
  await expect(page.getByRole('heading', { name: 'Pay by card' })).toBeVisible();
  await expect(page.getByTestId('invoice-ref')).toBeHidden();
  await expect(page.getByTestId('amount-due')).toBeVisible();
  await page.getByRole('button', { name: /Show details/ }).click();
  await expect(page.getByTestId('invoice-ref')).toHaveText(session.invoice_ref);
  await page.getByRole('button', { name: 'Hide details' }).click();
  await expect(page.getByTestId('invoice-ref')).toBeHidden();
  // On a desktop the summary stays whole beside the form.
  await page.setViewportSize({ width: 1280, height: 860 });
  await expect(page.getByTestId('invoice-ref')).toBeVisible();
});
