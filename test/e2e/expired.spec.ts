import { expect, test } from './fixtures';
import { CALLBACK_URL, checkoutPath, createSession, shot } from './support';
import { budgetNow } from '../support/pace';

/*
 * A browser test cannot move the server's clock and the server offers no test-only way to expire
 * a session early. So the expired screen is shown two ways:
 *  1. with the session API answer intercepted (page.route) to say `expired`: fast, every run;
 *  2. for real: a session created with the shortest lifetime (expires_in_seconds: 60), waited out,
 *     and then the server itself reports it expired (the sweeper or the expire-on-read).
 */

test('shows the expired screen (session API intercepted to answer expired)', async ({ page }, info) => {
  const session = await createSession();
  await page.route(`**/api/v1/checkout/sessions/${session.id}`, async (route) => {
    const res = await route.fetch();
    const body = (await res.json()) as Record<string, unknown>;
    await route.fulfill({ response: res, json: { ...body, status: 'expired', expires_at: new Date(Date.now() - 60_000).toISOString() } });
  });
  await page.goto(checkoutPath(session));
  await expect(page.getByTestId('screen-expired')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'This checkout has expired' })).toBeFocused();
  await expect(page.getByTestId('screen-expired')).toContainText(session.invoice_ref);
  await expect(page.getByTestId('return-to-merchant')).toHaveAttribute('href', CALLBACK_URL);
  await expect(page.getByRole('button', { name: /Mobile Money/ })).toHaveCount(0);
  await shot(page, info, '20-expired');
});

test('an open page turns to the expired screen when the session really expires', async ({ page }, info) => {
  test.skip(info.project.name !== 'desktop', 'one real 60-second wait is enough');
  test.setTimeout(budgetNow(150_000));
  const session = await createSession({ expiresInSeconds: 60 });
  await page.goto(checkoutPath(session));
  await expect(page.getByRole('button', { name: /Mobile Money/ })).toBeVisible();
  // The page counts down to expires_at and re-reads the session when it passes.
  await expect(page.getByTestId('screen-expired')).toBeVisible({ timeout: 100_000 });
});
