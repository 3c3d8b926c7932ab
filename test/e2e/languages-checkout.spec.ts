import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { untranslatedText } from './untranslated';
import { SUPERVISOR, TELLER, checkoutPath, createSession, seriousAxeViolations, shot, staffCall, type CreatedSession } from './support';
import { budgetNow } from '../support/pace';

/**
 * The payer pages speak the payer's language: every page and state read in the pseudo-locale
 * (`?lang=pseudo`) shows no text that is not a message; a French browser gets French (and
 * `<html lang="fr-…">`); the language menu switches and the choice survives a reload. One browser,
 * pages walked in sequence. Selectors here use test ids, rails and field names, never words.
 */

test.skip(({ isMobile }) => isMobile, 'sets its own widths; the language does not depend on the project');

const pseudo = (s: CreatedSession) => `${checkoutPath(s)}?lang=pseudo`;

async function expectAllTranslated(page: Page, screen: string): Promise<void> {
  expect(await untranslatedText(page), `${screen}: text that is not a message`).toEqual([]);
}

/** The session API answered with another status (a browser test cannot move the server's clock). */
async function answerAs(page: Page, session: CreatedSession, status: 'failed' | 'expired'): Promise<void> {
  await page.route(`**/api/v1/checkout/sessions/${session.id}`, async (route) => {
    const res = await route.fetch();
    const body = (await res.json()) as Record<string, unknown>;
    await route.fulfill({ response: res, json: { ...body, status, expires_at: new Date(Date.now() - 60_000).toISOString() } });
  });
}

test('every payer page and state in the pseudo-locale shows only messages', async ({ page }) => {
  test.setTimeout(budgetNow(180_000));

  // Method picker, in the pseudo-locale (the page's language is marked as such).
  const momo = await createSession();
  await page.goto(pseudo(momo));
  await expect(page.locator('button.method[data-rail="momo"]')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
  await expectAllTranslated(page, 'method picker');

  // Mobile Money: the form, its field errors, the approval step (OTP), a declined request.
  await page.locator('button.method[data-rail="momo"]').click();
  await page.locator('form.pay-form button[type="submit"]').click();
  await expect(page.locator('.field-error')).toHaveCount(2);
  await expectAllTranslated(page, 'Mobile Money form with errors');
  await page.locator('select[name="operator"]').selectOption('mtn');
  await page.locator('input[name="phone"]').fill('024 123 4567');
  await page.locator('form.pay-form button[type="submit"]').click();
  await expect(page.getByTestId('phone-last4')).toHaveText('4567');
  await expect(page.getByTestId('resend-countdown')).toBeVisible();
  await expectAllTranslated(page, 'Mobile Money approval');
  await page.locator('input[name="code"]').fill('000000');
  await page.locator('form.code-form button[type="submit"]').click();
  await expect(page.getByTestId('momo-declined')).toBeVisible();
  await expectAllTranslated(page, 'Mobile Money declined');

  // An error the API words in English reaches the payer as a message of its code.
  const rejected = await createSession();
  await page.goto(pseudo(rejected));
  await page.locator('button.method[data-rail="momo"]').click();
  await page.locator('select[name="operator"]').selectOption('mtn');
  await page.locator('input[name="phone"]').fill('024 000 0006'); // sandbox: wallet not registered
  await page.locator('form.pay-form button[type="submit"]').click();
  await expect(page.locator('.notice-error[role="alert"]')).toBeVisible();
  await expect(page.locator('.notice-error[role="alert"]')).not.toContainText('registered');
  await expectAllTranslated(page, 'Mobile Money refused by the provider');

  // Card: the form with the test cards, then a declined card.
  const card = await createSession();
  await page.goto(pseudo(card));
  await page.locator('button.method[data-rail="card"]').click();
  await expect(page.locator('input[name="card-number-sim"]')).toBeVisible();
  await expectAllTranslated(page, 'card form');
  await page.locator('button.test-card').nth(1).click(); // 4000 0000 0000 0002: declined
  await page.locator('input[name="card-expiry-sim"]').pressSequentially('1230');
  await page.locator('input[name="card-cvc-sim"]').fill('123');
  await page.locator('form.pay-form button[type="submit"]').click();
  await expect(page.getByTestId('card-result')).toBeVisible();
  await expectAllTranslated(page, 'card declined');

  // Bank transfer: the first step, then the instructions.
  const bank = await createSession();
  await page.goto(pseudo(bank));
  await page.locator('button.method[data-rail="bank_transfer"]').click();
  await expect(page.locator('.pay-form .btn-primary')).toBeVisible();
  await expectAllTranslated(page, 'bank transfer first step');
  await page.locator('.pay-form .btn-primary').click();
  await expect(page.getByTestId('bank-instructions')).toBeVisible();
  await expectAllTranslated(page, 'bank transfer instructions');

  // Cash: the steps, the slip, its print view; then pending (teller recorded), a rejected deposit, success.
  const cash = await createSession();
  await page.goto(pseudo(cash));
  await page.locator('button.method[data-rail="cash"]').click();
  await expect(page.locator('.steps-list')).toBeVisible();
  await expectAllTranslated(page, 'cash first step');
  await page.locator('.pay-form .btn-primary').click();
  await expect(page.getByTestId('barcode-qrcode').locator('svg')).toBeVisible();
  await expect(page.getByTestId('barcode-code128').locator('svg')).toBeVisible();
  await expectAllTranslated(page, 'cash slip');
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('deposit-slip')).toBeVisible();
  await expectAllTranslated(page, 'cash slip, print view');
  await page.emulateMedia({ media: 'screen' });
  const token = (await page.locator('.slip-token').textContent())!.trim();
  const { deposit } = await staffCall<{ deposit: { id: string } }>(TELLER.username, 'POST', `/cash-slips/${token}/deposits`, { amount_minor: 22_450 });
  await expect(page.getByTestId('screen-pending')).toBeVisible({ timeout: 15_000 });
  await expectAllTranslated(page, 'pending');
  await staffCall(SUPERVISOR.username, 'POST', `/deposits/${deposit.id}/reject`, { reason: 'Counterfeit note' });
  await expect(page.getByTestId('deposit-rejected')).toBeVisible({ timeout: 15_000 });
  await expectAllTranslated(page, 'rejected cash deposit');

  // Success with its receipt (a second slip, approved).
  await page.locator('button.method[data-rail="cash"]').click();
  await page.locator('.pay-form .btn-primary').click();
  const token2 = (await page.locator('.slip-token').textContent())!.trim();
  const second = await staffCall<{ deposit: { id: string } }>(TELLER.username, 'POST', `/cash-slips/${token2}/deposits`, { amount_minor: 22_450 });
  await staffCall(SUPERVISOR.username, 'POST', `/deposits/${second.deposit.id}/approve`);
  await expect(page.getByTestId('payment-receipt')).toBeVisible({ timeout: 15_000 });
  await expectAllTranslated(page, 'success');

  // Failed and expired (the session API answer rewritten), and a checkout that does not exist.
  const failed = await createSession();
  await answerAs(page, failed, 'failed');
  await page.goto(pseudo(failed));
  await expect(page.getByTestId('screen-failed')).toBeVisible();
  await expectAllTranslated(page, 'failed');
  const expired = await createSession();
  await answerAs(page, expired, 'expired');
  await page.goto(pseudo(expired));
  await expect(page.getByTestId('screen-expired')).toBeVisible();
  await expectAllTranslated(page, 'expired');
  await page.goto('/checkout/cs_test_doesnotexist000000?lang=pseudo');
  await expect(page.getByTestId('screen-not-found')).toBeVisible();
  await expectAllTranslated(page, 'not found');
});

test.describe('in a French browser', () => {
  test.use({ locale: 'fr-FR' });

  test('the payer reads French, can switch to English, and the choice stays on the device', async ({ page }, info) => {
    test.setTimeout(budgetNow(120_000));
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await expect(page.getByRole('heading', { name: 'Comment souhaitez-vous payer ?' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
    await expect(page).toHaveTitle(/^Payer /);
    const momo = page.locator('button.method[data-rail="momo"]');
    // French amounts: 224,73 GHS (a comma for decimals), fee included.
    await expect(momo).toContainText(/224,73\sGHS/u);
    await expect(momo).toContainText('de frais');
    await expect(page.locator('button.method[data-rail="cash"]')).toContainText('Espèces en agence bancaire');

    // The French screens at a phone's width and a laptop's: nothing wider than the window.
    for (const width of [390, 1366]) {
      // A session each: the first one's slip would open the second one's page on the slip.
      const fresh = await createSession();
      await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
      await page.goto(checkoutPath(fresh));
      await expect(momo).toBeVisible();
      await expectNoOverflow(page, `method picker at ${width}`);
      await shot(page, info, `fr-${width}-01-method-picker`);
      await momo.click();
      await expect(page.getByRole('heading', { name: 'Payer par Mobile Money' })).toBeVisible();
      await expect(page.getByLabel('Opérateur')).toBeVisible();
      await expectNoOverflow(page, `Mobile Money at ${width}`);
      await shot(page, info, `fr-${width}-02-momo-form`);
      await page.getByRole('button', { name: /Choisir un autre moyen/ }).click();
      await page.locator('button.method[data-rail="cash"]').click();
      await page.getByRole('button', { name: 'Créer le bordereau de versement' }).click();
      await expect(page.getByTestId('barcode-code128').locator('svg')).toBeVisible();
      await expect(page.getByTestId('deposit-slip')).toContainText('Bordereau de versement');
      await expect(page.getByTestId('slip-expiry').locator('time')).toHaveAttribute('datetime', /^\d{4}-\d{2}-\d{2}T/);
      await expectNoOverflow(page, `cash slip at ${width}`);
      await shot(page, info, `fr-${width}-03-cash-slip`);
    }

    // The menu in the top bar switches to English; the choice outlives a reload.
    await page.setViewportSize({ width: 390, height: 844 });
    const menu = page.getByRole('combobox', { name: 'Langue' });
    await expect(menu).toBeVisible();
    await expect(menu).toHaveValue('fr');
    await menu.selectOption('en');
    await expect(page.getByRole('heading', { name: 'Your deposit slip' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', /^en/);
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Your deposit slip' })).toBeVisible();
    await expect(page.getByRole('combobox', { name: 'Language' })).toHaveValue('en');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Votre bordereau de versement' })).toBeVisible();

    // Outcome screens in French.
    const expired = await createSession();
    await answerAs(page, expired, 'expired');
    await page.goto(checkoutPath(expired));
    await expect(page.getByRole('heading', { name: 'Ce lien de paiement a expiré' })).toBeVisible();
    await expect(page.getByTestId('return-to-merchant')).toContainText('Retour à');
    await page.goto('/checkout/cs_test_doesnotexist000000');
    await expect(page.getByRole('heading', { name: 'Paiement introuvable' })).toBeVisible();
  });

  test('the Mobile Money option names the networks of the session’s countries, in French and in English', async ({ page }) => {
    const hint = page.locator('button.method[data-rail="momo"] .method-hint');
    const cases: Array<{ currency: string; amountMinor: number; fr: string; en: RegExp }> = [
      { currency: 'GHS', amountMinor: 25_000, fr: 'MTN MoMo, Telecel Cash ou AirtelTigo Money\u00a0: validez sur le téléphone', en: /^MTN MoMo, Telecel Cash,? or AirtelTigo Money: approve on your phone$/ },
      // Côte d’Ivoire’s and Senegal’s, each network once.
      { currency: 'XOF', amountMinor: 250_000, fr: 'Orange Money, MTN MoMo, Moov Money, Wave ou Free Money\u00a0: validez sur le téléphone', en: /^Orange Money, MTN MoMo, Moov Money, Wave,? or Free Money: approve on your phone$/ },
      { currency: 'KES', amountMinor: 150_000, fr: 'M-Pesa ou Airtel Money\u00a0: validez sur le téléphone', en: /^M-Pesa or Airtel Money: approve on your phone$/ },
    ];
    for (const c of cases) {
      const session = await createSession({ currency: c.currency, amountMinor: c.amountMinor, withLines: false });
      await page.goto(checkoutPath(session));
      await expect(hint, c.currency).toHaveText(c.fr);
      await page.getByRole('combobox', { name: 'Langue' }).selectOption('en');
      await expect(hint, c.currency).toHaveText(c.en);
      await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
      await expect(hint, c.currency).toHaveText(c.fr);
    }
  });

  test('the French payer screens have no serious or critical accessibility violation', async ({ page }) => {
    test.setTimeout(budgetNow(120_000));
    const axeClean = async (screen: string) => expect.soft(await seriousAxeViolations(page), `${screen} (fr)`).toBe('');
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
      const session = await createSession({ currency: 'XOF', amountMinor: 250_000, withLines: false });
      await page.goto(checkoutPath(session));
      await expect(page.getByRole('heading', { name: 'Comment souhaitez-vous payer ?' })).toBeVisible();
      await axeClean(`method picker at ${width}`);
      await page.locator('button.method[data-rail="momo"]').click();
      await expect(page.getByRole('heading', { name: 'Payer par Mobile Money' })).toBeVisible();
      await page.locator('form.pay-form button[type="submit"]').click();
      await expect(page.locator('.field-error').first()).toBeVisible();
      await axeClean(`Mobile Money form with its errors at ${width}`);
      await page.getByRole('button', { name: /Choisir un autre moyen/ }).click();
      await page.locator('button.method[data-rail="card"]').click();
      await expect(page.locator('input[name="card-number-sim"]')).toBeVisible();
      await axeClean(`card form at ${width}`);
      await page.getByRole('button', { name: /Choisir un autre moyen/ }).click();
      await page.locator('button.method[data-rail="bank_transfer"]').click();
      await page.locator('.pay-form .btn-primary').click();
      await expect(page.getByTestId('bank-instructions')).toBeVisible();
      await axeClean(`bank transfer instructions at ${width}`);
    }
    const cash = await createSession();
    await page.goto(checkoutPath(cash));
    await page.locator('button.method[data-rail="cash"]').click();
    await page.getByRole('button', { name: 'Créer le bordereau de versement' }).click();
    await expect(page.getByTestId('barcode-code128').locator('svg')).toBeVisible();
    await axeClean('cash slip');
    const expired = await createSession();
    await answerAs(page, expired, 'expired');
    await page.goto(checkoutPath(expired));
    await expect(page.getByRole('heading', { name: 'Ce lien de paiement a expiré' })).toBeVisible();
    await axeClean('expired');
  });
});

/** Long French words must wrap, not push the page sideways. */
async function expectNoOverflow(page: Page, screen: string): Promise<void> {
  const wide = await page.evaluate(() => {
    const limit = document.documentElement.clientWidth;
    return Array.from(document.querySelectorAll('body *'))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > limit + 1 && getComputedStyle(el).position !== 'absolute';
      })
      .map((el) => `${el.tagName.toLowerCase()}.${(el as HTMLElement).className}`)
      .slice(0, 5);
  });
  expect(wide, `${screen}: elements wider than the window`).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), `${screen}: horizontal scroll`).toBeLessThanOrEqual(0);
}
