import { expect, test } from './fixtures';
import { readCode } from './read-codes';
import { MERCHANT_NAME, SUPERVISOR, TELLER, checkoutPath, createSession, shot, staffCall } from './support';

test('creates and shows a printable cash deposit slip', async ({ page }, info) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  const cash = page.getByRole('button', { name: /Cash at a bank branch/ });
  await expect(cash).toContainText('224.50'); // flat 2.00 payer-borne branch fee
  await cash.click();
  await expect(page.getByRole('heading', { name: 'Pay cash at a bank' })).toBeFocused();
  await shot(page, info, '10-cash-intro');
  await page.getByRole('button', { name: 'Create deposit slip' }).click();

  const slip = page.getByTestId('deposit-slip');
  await expect(slip).toBeVisible();
  await expect(slip).toContainText(MERCHANT_NAME);
  await expect(slip).toContainText(session.invoice_ref);
  await expect(page.getByTestId('slip-amount')).toContainText('224.50');
  await expect(page.getByTestId('slip-reference')).not.toBeEmpty();
  await expect(page.getByTestId('slip-expiry')).not.toBeEmpty();
  // Banks and branches from the options endpoint.
  await expect(slip).toContainText('GCB Bank');
  await expect(slip).toContainText('High Street, Accra');

  // QR code and Code 128 barcode, drawn as SVG (qrcode, jsbarcode), with real size.
  const qr = page.getByTestId('barcode-qrcode').locator('svg');
  const bars = page.getByTestId('barcode-code128').locator('svg');
  await expect(qr).toBeVisible();
  await expect(bars).toBeVisible();
  expect((await qr.boundingBox())!.width).toBeGreaterThan(80);
  expect((await bars.boundingBox())!.width).toBeGreaterThan(150);
  expect(await bars.locator('path, rect, polygon').count()).toBeGreaterThan(0);
  await expect(page.getByRole('button', { name: 'Print slip' })).toBeVisible();
  await shot(page, info, '11-cash-slip');

  // Print: only the slip, no page chrome, no buttons.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('button', { name: 'Print slip' })).toBeHidden();
  await expect(page.getByTestId('merchant-name')).toBeHidden();
  await expect(page.getByTestId('amount-due')).toBeHidden();
  await expect(slip).toBeVisible();
  await expect(qr).toBeVisible();
  await expect(bars).toBeVisible();
  // Both printed codes carry the slip token: a scanner reads the same text from either.
  const token = (await page.locator('.slip-token').textContent())!.trim();
  expect(token).toMatch(/^slp_[A-Za-z0-9]+$/);
  expect(await readCode(page.context(), page.getByTestId('barcode-qrcode'), 'qrcode')).toBe(token);
  expect(await readCode(page.context(), page.getByTestId('barcode-code128'), 'code128')).toBe(token);
  await shot(page, info, '12-cash-slip-print');
  if (info.project.name === 'desktop') {
    // A real PDF of the page as Chromium would print it, for a person to look at.
    await page.pdf({ path: `test-results/screens/${info.project.name}/12-cash-slip-print.pdf`, format: 'A4', printBackground: true });
  }
  await page.emulateMedia({ media: 'screen' });

  // A reload (or a second tab) shows the same slip straight away: the session carries it.
  const reference = await page.getByTestId('slip-reference').textContent();
  await page.reload();
  await expect(page.getByTestId('slip-reference')).toHaveText(reference!);
  await expect(page.getByText('already issued for this checkout')).toBeVisible();
});

test('a cash deposit recorded by a teller shows as under review, then paid once approved', async ({ page }, info) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Cash at a bank branch/ }).click();
  await page.getByRole('button', { name: 'Create deposit slip' }).click();
  const token = (await page.locator('.slip-token').textContent())!.trim();
  expect(token).toMatch(/^slp_/);

  // At the branch: the teller scans the slip and records the counted cash (the slip amount, 224.50).
  const { deposit } = await staffCall<{ deposit: { id: string; status: string } }>(TELLER.username, 'POST', `/cash-slips/${token}/deposits`, {
    amount_minor: 22_450,
  });
  expect(deposit.status).toBe('under_review');
  await expect(page.getByTestId('screen-pending')).toBeVisible({ timeout: 15_000 });
  await shot(page, info, '13-cash-under-review');

  // A supervisor (not the teller) approves: the payer's open page turns to success by itself.
  await staffCall(SUPERVISOR.username, 'POST', `/deposits/${deposit.id}/approve`);
  await expect(page.getByTestId('screen-success')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('screen-success')).toContainText('Cash');
  await expect(page.getByTestId('receipt-amount')).toContainText('224.50');
  await shot(page, info, '14-cash-paid');
});
