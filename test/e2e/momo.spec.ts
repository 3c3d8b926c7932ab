import { expect, test } from './fixtures';
import { CALLBACK_URL, MERCHANT_NAME, checkoutPath, createSession, getMerchantSession, shot } from './support';

test('pays a session by Mobile Money end to end', async ({ page }, info) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));

  // Summary: merchant, invoice, amount in GHS from minor units, test badge, line items.
  await expect(page.getByTestId('merchant-name')).toHaveText(MERCHANT_NAME);
  await expect(page.getByTestId('test-mode-badge')).toBeVisible();
  await expect(page.getByTestId('invoice-ref')).toHaveText(session.invoice_ref);
  await expect(page.getByTestId('amount-due')).toContainText('222.50');
  await expect(page.getByRole('button', { name: /Mobile Money/ })).toBeVisible();
  await shot(page, info, '01-method-picker');

  if (info.project.name === 'mobile') {
    await page.getByRole('button', { name: /Show details/ }).click();
    await expect(page.getByText('Sewerage levy')).toBeVisible();
    await shot(page, info, '01b-summary-details');
  } else {
    await expect(page.getByText('Sewerage levy')).toBeVisible();
  }

  // Method picker shows the payer-borne Mobile Money fee (1 %) in the total.
  const momo = page.getByRole('button', { name: /Mobile Money/ });
  await expect(momo).toContainText('224.73');
  await expect(momo).toContainText('fee');
  await momo.click();

  await expect(page.getByRole('heading', { name: 'Pay with Mobile Money' })).toBeFocused();
  // The summary now shows the total with the fee.
  await expect(page.getByTestId('amount-due')).toContainText('224.73');

  // Validation: submitting empty names both problems and focuses the first.
  await page.getByRole('button', { name: /^Pay / }).click();
  await expect(page.getByText('Choose your Mobile Money network.')).toBeVisible();
  await expect(page.getByLabel('Network')).toBeFocused();
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Mobile Money number').fill('0241234567');
  await shot(page, info, '02-momo-form');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();

  // Approve step: prompt sent, live status, resend countdown, code entry.
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeFocused();
  await expect(page.getByTestId('phone-last4')).toHaveText('4567');
  await expect(page.getByTestId('momo-status')).toContainText('Waiting for you to approve');
  await expect(page.getByTestId('resend-countdown')).toContainText(/in 0:[0-9]{2}/);
  await expect(page.getByRole('button', { name: 'Resend code' })).toBeDisabled();
  await shot(page, info, '03-momo-approve');

  const code = page.getByLabel('Verification code');
  await code.fill('123456');
  await page.getByRole('button', { name: 'Confirm payment' }).click();

  // Success screen, driven by the session turning `success`.
  await expect(page.getByTestId('screen-success')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Payment successful' })).toBeFocused();
  await expect(page.getByTestId('screen-success')).toContainText('Mobile Money');
  await expect(page.getByTestId('return-to-merchant')).toHaveAttribute('href', CALLBACK_URL);
  await shot(page, info, '04-success');

  // The merchant sees the same final state through its own API.
  expect((await getMerchantSession(session.id)).status).toBe('success');
});

test('a wrong Mobile Money code declines that request only: a new request is one step away, even after five declines', async ({ page }, info) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Mobile Money/ }).click();
  await page.getByLabel('Mobile Money number').fill('024 123 4567');
  // The network is preselected from the number prefix (024 → MTN).
  await expect(page.getByLabel('Network')).toHaveValue('mtn');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  for (let i = 0; i < 5; i++) {
    await page.getByLabel('Verification code').fill('000000');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await expect(page.getByTestId('momo-declined')).toContainText('verification code was not correct');
    await expect(page.getByTestId('momo-retry-rule')).toContainText('does not close this checkout');
    if (i === 0) await shot(page, info, '05-momo-declined');
    // One step: the new request goes to the same number.
    await page.getByRole('button', { name: 'Send a new request to ••4567' }).click();
    await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeVisible();
    await expect(page.getByTestId('phone-last4')).toHaveText('4567');
  }
  await page.getByLabel('Verification code').fill('123456');
  await page.getByRole('button', { name: 'Confirm payment' }).click();
  await expect(page.getByTestId('screen-success')).toBeVisible();
  expect((await getMerchantSession(session.id)).status).toBe('success');
});

test('after a decline the payer can change the number instead', async ({ page }) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Mobile Money/ }).click();
  await page.getByLabel('Mobile Money number').fill('024 123 4567');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await page.getByLabel('Verification code').fill('000000');
  await page.getByRole('button', { name: 'Confirm payment' }).click();
  await page.getByRole('button', { name: 'Use another number or method' }).click();
  await expect(page.getByRole('heading', { name: 'Pay with Mobile Money' })).toBeVisible();
  await expect(page.getByLabel('Mobile Money number')).toHaveValue('024 123 4567');
});

test('a reloaded page resumes the pending Mobile Money prompt', async ({ page }) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Mobile Money/ }).click();
  await page.getByLabel('Network').selectOption('telecel');
  await page.getByLabel('Mobile Money number').fill('0201234567');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeVisible();
  await expect(page.getByTestId('phone-last4')).toHaveText('4567');
  await page.getByLabel('Verification code').fill('123456');
  await page.getByRole('button', { name: 'Confirm payment' }).click();
  await expect(page.getByTestId('screen-success')).toBeVisible();
});
