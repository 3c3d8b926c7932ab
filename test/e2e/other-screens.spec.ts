import { expect, test } from './fixtures';
import { CALLBACK_URL, checkoutPath, createSession, getMerchantSession, shot } from './support';

test('card test simulation: a declined card, then an approved one', async ({ page }, info) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  const card = page.getByRole('button', { name: /^Card/ });
  await expect(card).toContainText('No fee'); // merchant-borne by default: the total stays the invoice amount
  await card.click();
  await expect(page.getByRole('heading', { name: 'Pay by card' })).toBeFocused();
  await expect(page.getByText('TEST SIMULATION')).toBeVisible();
  await expect(page.getByText('4242 4242 4242 4242')).toBeVisible();

  await page.getByRole('button', { name: /Use test card 4000 0000 0000 9995/ }).click();
  await expect(page.getByLabel('Card number')).toHaveValue('4000 0000 0000 9995');
  await page.getByLabel('Expiry date').pressSequentially('1230');
  await expect(page.getByLabel('Expiry date')).toHaveValue('12 / 30');
  await page.getByLabel('Security code').fill('123');
  await page.getByLabel(/Name on card/).fill('Ama Mensah');
  await shot(page, info, '30-card-form');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await expect(page.getByTestId('card-result')).toContainText('not have enough funds');
  await expect(page.getByLabel('Security code')).toHaveValue(''); // never kept after a submit
  await shot(page, info, '31-card-declined');

  await page.getByLabel('Card number').fill('4242424242424242');
  await page.getByLabel('Security code').fill('123');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await expect(page.getByTestId('screen-success')).toBeVisible();
  await expect(page.getByTestId('screen-success')).toContainText('Card');
  expect((await getMerchantSession(session.id)).status).toBe('success');
});

test('bank transfer shows instructions with copy buttons', async ({ page, context }, info) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const session = await createSession();
  await page.goto(checkoutPath(session));
  const bank = page.getByRole('button', { name: /Bank transfer/ });
  await expect(bank).toContainText('223.50'); // flat 1.00 payer-borne fee
  await bank.click();
  await shot(page, info, '40-bank-intro');
  await page.getByRole('button', { name: 'Get transfer details' }).click();
  await expect(page.getByRole('heading', { name: 'Transfer the money' })).toBeFocused();
  await expect(page.getByTestId('bt-amount')).toContainText('223.50');
  await expect(page.getByTestId('bt-account')).not.toBeEmpty();
  const reference = (await page.getByTestId('bt-reference').textContent())!;
  expect(reference).toMatch(/\S{6,}/);
  await expect(page.getByTestId('bt-status')).toContainText('Waiting for your transfer');
  // The instructions have their own window: the checkout waits for the transfer (pending) until it ends.
  await expect(page.getByTestId('bt-window-rule')).toContainText('reserved for this transfer until');
  await expect(page.getByText(/Use these details before .*\(\d+:\d{2} left\)/)).toBeVisible();
  expect((await getMerchantSession(session.id)).status).toBe('pending');
  // A pending session does not expire: the summary shows no session expiry, only the window above.
  await expect(page.getByText(/^Expires (in|at)/)).toHaveCount(0);

  await page.getByRole('button', { name: 'Copy payment reference' }).click();
  await expect(page.getByRole('button', { name: 'Copy payment reference' })).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reference);
  await shot(page, info, '41-bank-instructions');

  // A reload resumes the transfer from the session's pending attempt, with the same details.
  await page.reload();
  await expect(page.getByTestId('bt-reference')).toHaveText(reference);
});

test('a pending session (cash deposit under teller review) is explained', async ({ page }, info) => {
  const session = await createSession();
  // Reaching `pending` through cash needs a teller and the back office; the payer page only
  // needs the session to say so, so the answer is intercepted here.
  await page.route(`**/api/v1/checkout/sessions/${session.id}`, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { ...((await res.json()) as object), status: 'pending', pending_attempt: null } });
  });
  await page.goto(checkoutPath(session));
  await expect(page.getByTestId('screen-pending')).toBeVisible();
  await expect(page.getByTestId('screen-pending')).toContainText('reviewed');
  await expect(page.getByTestId('return-to-merchant')).toHaveAttribute('href', CALLBACK_URL);
  await shot(page, info, '50-pending');
});

test('a failed session shows the failed screen (session API intercepted)', async ({ page }, info) => {
  const session = await createSession();
  await page.route(`**/api/v1/checkout/sessions/${session.id}`, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { ...((await res.json()) as object), status: 'failed' } });
  });
  await page.goto(checkoutPath(session));
  await expect(page.getByTestId('screen-failed')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Payment failed' })).toBeFocused();
  await expect(page.getByTestId('return-to-merchant')).toHaveAttribute('href', CALLBACK_URL);
  await shot(page, info, '51-failed');
});

test('an unknown checkout reference shows "not found"', async ({ page }, info) => {
  await page.goto('/checkout/cs_test_doesnotexist000000');
  await expect(page.getByTestId('screen-not-found')).toBeVisible();
  await shot(page, info, '52-not-found');
});

test('a 409 while paying refreshes the session instead of dead-ending', async ({ page }) => {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await page.getByRole('button', { name: /Cash at a bank branch/ }).click();
  // The merchant's fee changes under the payer: the server refuses the stale amount.
  let sessionReads = 0;
  await page.route(`**/api/v1/checkout/sessions/${session.id}`, async (route) => {
    sessionReads++;
    await route.continue();
  });
  await page.route('**/api/v1/checkout/cash-slips', (route) =>
    route.fulfill({ status: 409, json: { error: { code: 'PAYMENT_AMOUNT_MISMATCH', message: 'amount_minor: differs from the current cash total' } } }),
  );
  await page.getByRole('button', { name: 'Create deposit slip' }).click();
  await expect(page.getByRole('alert')).toContainText('amount to pay changed');
  await expect.poll(() => sessionReads).toBeGreaterThan(0);
  await expect(page.getByRole('button', { name: 'Create deposit slip' })).toBeEnabled();
});

test('the checkout is usable with the keyboard alone', async ({ page }) => {
  test.skip(test.info().project.name !== 'desktop', 'keyboard navigation is a desktop concern');
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await expect(page.getByRole('button', { name: /Mobile Money/ })).toBeVisible();
  // Skip link first, then into the page; Tab until the Mobile Money button has focus.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to payment' })).toBeFocused();
  const momo = page.getByRole('button', { name: /Mobile Money/ });
  for (let i = 0; i < 10 && !(await momo.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(momo).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Pay with Mobile Money' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Network')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Mobile Money number')).toBeFocused();
  await page.keyboard.type('0241234567'); // prefix 024 preselects MTN
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Approve on your phone' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Verification code')).toBeFocused();
  await page.keyboard.type('123456');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Payment successful' })).toBeFocused();
});
