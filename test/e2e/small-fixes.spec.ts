import { expect, test } from './fixtures';
import { checkoutPath, createSession, shot } from './support';

/** Small things a payer or a clerk notices at once. */
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

test('the cash slip: "Amount to pay" sits on the same edge as its amount', async ({ page }, info) => {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(checkoutPath(await createSession()));
    await page.getByRole('button', { name: /^Cash/ }).click();
    await page.getByRole('button', { name: /Create deposit slip/ }).click();
    const box = page.getByTestId('deposit-slip').locator('.slip-amount-box');
    await expect(page.getByTestId('slip-amount')).toBeVisible();
    const label = (await box.locator('span').first().boundingBox())!;
    const amount = (await page.getByTestId('slip-amount').boundingBox())!;
    // Right-aligned on a desktop, left-aligned on a phone: either way, one edge within a pixel.
    const edge = width > 520 ? [label.x + label.width, amount.x + amount.width] : [label.x, amount.x];
    expect(Math.abs(edge[0]! - edge[1]!), `width ${width}`).toBeLessThanOrEqual(1);
    await shot(page, info, `sf-cash-slip-${width}`);
  }
});

test('while a Mobile Money payment is pending the page asks for no quote (no 409s) and raises no false alarm', async ({ page }) => {
  const session = await createSession();
  const conflicts: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith(`/sessions/${session.id}/quote`) && r.status() === 409) conflicts.push(r.status());
  });
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Mobile Money/ }).click();
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Mobile Money number').fill('0241234567');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeVisible();
  // Several status polls (every 3 s) while the session is pending.
  await expect(page.getByTestId('momo-status')).toContainText('Waiting for you to approve');
  await page.waitForTimeout(7_000);
  expect(conflicts).toEqual([]);
  await expect(page.getByText('This checkout changed while you were on it')).toHaveCount(0);
  // A reload reads the session before the app's code has arrived (first-fetch.ts): still no quote for a pending session.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeVisible();
  await page.waitForTimeout(2_000);
  expect(conflicts).toEqual([]);
});
