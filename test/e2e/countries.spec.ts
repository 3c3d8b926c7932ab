import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { STAFF_PASSWORD, SUPERVISOR, TELLER, adminCli, apiFetch, checkoutPath, createSession, shot, staffCall } from './support';
import { MAX_AMOUNT_MINOR } from '../../shared/schemas/common';
import { budgetNow } from '../support/pace';

/**
 * Every country and locale reads right, at 390 px (project `mobile`) and 1366 px (`desktop`), in
 * French and Ghanaian English browsers: a teller types amounts as they write them, a session at
 * the amount cap is paid by Mobile Money and by cash slip, an integration serving fewer
 * countries offers its payers only those, and staff see the instance's time zone.
 */
const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;

async function widthOf(page: Page, isMobile: boolean): Promise<number> {
  const width = isMobile ? 390 : 1366;
  await page.setViewportSize({ width, height: isMobile ? 844 : 900 });
  return width;
}

async function signIn(page: Page, username: string): Promise<void> {
  await page.goto('/backoffice/');
  await page.getByLabel(/^(Username|Identifiant)/).fill(username);
  await page.getByLabel(/^(Password|Mot de passe)/).fill(STAFF_PASSWORD);
  // Signed in (the cookie set) before the test goes anywhere else.
  const signedIn = page.waitForResponse((r) => r.url().endsWith('/api/backoffice/v1/auth/login') && r.status() === 200);
  await page.getByRole('button', { name: /^(Sign in|Se connecter)$/ }).click();
  await signedIn;
}

async function slipFor(amountMinor: number): Promise<{ slip_token: string; amount_minor: number }> {
  const session = await createSession({ amountMinor, withLines: false });
  const quote = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${session.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
  const res = await apiFetch(`${API}/api/v1/checkout/cash-slips`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session.id, amount_minor: quote.surcharges.cash.total_minor }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { slip_token: string; amount_minor: number };
}

/** The teller records `typed` on the slip: the receipt is the focus afterwards and shows `shown`. */
async function tellerRecords(page: Page, slipToken: string, typed: string, shown: RegExp): Promise<void> {
  await page.goto('/backoffice/teller/scan');
  const scan = page.getByLabel(/Slip barcode or reference|Code-barres ou référence/);
  await scan.fill(slipToken);
  await scan.press('Enter');
  const counted = page.getByLabel(/Counted cash|Espèces comptées/);
  await expect(counted).toBeFocused();
  await counted.fill(typed);
  await counted.press('Enter');
  await expect(page.getByRole('button', { name: /^(Print receipt|Imprimer le reçu)$/ })).toBeFocused();
  await expect(page.getByTestId('deposit-receipt')).toContainText(shown);
}

for (const locale of ['fr-FR', 'en-GH'] as const) {
  const fr = locale === 'fr-FR';
  test.describe(`in ${locale}`, () => {
    test.use({ locale });

    test('a teller records the GHS 196.53 slip as they write it', async ({ page, isMobile }, info) => {
      const width = await widthOf(page, isMobile);
      const slip = await slipFor(19_453); // GHS 194.53 + the GHS 2.00 cash fee
      expect(slip.amount_minor).toBe(19_653);
      await signIn(page, TELLER.username);
      await tellerRecords(page, slip.slip_token, fr ? '196,53' : '196.53', fr ? /196,53/ : /196\.53/);
      await shot(page, info, `countries-teller-${locale}-${width}`);
    });

    test('a session at the amount cap is paid by Mobile Money', async ({ page, isMobile }, info) => {
      test.setTimeout(budgetNow(120_000));
      const width = await widthOf(page, isMobile);
      // Mobile Money: the GHS 20.00 fee cap on top of GHS 1,000,000,000,000.00.
      const momo = await createSession({ amountMinor: MAX_AMOUNT_MINOR, withLines: false });
      await page.goto(checkoutPath(momo));
      const momoButton = page.getByRole('button', { name: /Mobile Money/ });
      await expect(momoButton).toContainText(fr ? /1\s000\s000\s000\s020,00/u : /1,000,000,000,020\.00/);
      await momoButton.click();
      await page.getByLabel(/^(Network|Opérateur)/).selectOption({ label: 'MTN MoMo' });
      await page.getByLabel(/Mobile Money number|Numéro Mobile Money/).fill('024 123 4567');
      await page.getByRole('button', { name: /^(Pay|Payer) / }).click();
      await expect(page.getByTestId('phone-last4')).toHaveText('4567');
      await page.getByLabel(/Verification code|Code de vérification/).fill('123456');
      await page.getByRole('button', { name: /Confirm payment|Confirmer le paiement/ }).click();
      await expect(page.getByTestId('screen-success')).toBeVisible();
      await expect(page.getByTestId('screen-success')).toContainText(fr ? /1\s000\s000\s000\s020,00/u : /1,000,000,000,020\.00/);
      await shot(page, info, `countries-cap-momo-${locale}-${width}`);
    });

    test('a session at the amount cap is paid by cash slip', async ({ page, isMobile }, info) => {
      test.setTimeout(budgetNow(120_000));
      const width = await widthOf(page, isMobile);
      // The payer prints the slip, the teller records it as written in the locale, a supervisor approves.
      const cash = await createSession({ amountMinor: MAX_AMOUNT_MINOR, withLines: false });
      const payer = await page.context().newPage();
      await payer.goto(checkoutPath(cash));
      await payer.getByRole('button', { name: /Cash at a bank branch|Espèces/ }).click();
      await payer.getByRole('button', { name: /Create deposit slip|Créer le bordereau/ }).click();
      const token = (await payer.locator('.slip-token').textContent())!.trim();
      await expect(payer.getByTestId('slip-amount')).toContainText(fr ? /1\s000\s000\s000\s002,00/u : /1,000,000,000,002\.00/);
      await signIn(page, TELLER.username);
      await tellerRecords(page, token, fr ? '1 000 000 000 002,00' : '1,000,000,000,002.00', fr ? /1\s000\s000\s000\s002,00/u : /1,000,000,000,002\.00/);
      const waiting = await staffCall<{ deposits: { id: string; session_id: string; amount_minor: number }[] }>(SUPERVISOR.username, 'GET', '/deposits?status=under_review&limit=200');
      const deposit = waiting.deposits.find((d) => d.session_id === cash.id);
      expect(deposit?.amount_minor).toBe(MAX_AMOUNT_MINOR + 200);
      expect(deposit, 'the recorded deposit waits for review').toBeDefined();
      await staffCall(SUPERVISOR.username, 'POST', `/deposits/${deposit!.id}/approve`);
      await expect(payer.getByTestId('screen-success')).toBeVisible({ timeout: 15_000 });
      await expect(payer.getByTestId('receipt-amount')).toContainText(fr ? /1\s000\s000\s000\s002,00/u : /1,000,000,000,002\.00/);
      await shot(payer, info, `countries-cap-cash-${locale}-${width}`);
    });

    test('an integration serving Côte d’Ivoire only offers its XOF payers Côte d’Ivoire’s networks', async ({ page, isMobile }, info) => {
      const width = await widthOf(page, isMobile);
      const run = `${locale}-${width}-${Date.now() % 1_000_000}`;
      const merchant = `Yamoussoukro Gaz ${run}`;
      const created = adminCli(['integration:create', '--merchant', merchant]);
      adminCli(['staff:create', '--username', `ctry.admin.${run}`.toLowerCase(), '--password', STAFF_PASSWORD, '--role', 'admin']);
      await signIn(page, `ctry.admin.${run}`.toLowerCase());
      await page.goto('/backoffice/admin');
      await page.getByRole('button', { name: fr ? `Gérer l’intégration de ${merchant}` : `Manage ${merchant} integration` }).click();
      const field = page.getByTestId('momo-countries');
      await expect(field.getByRole('radio', { name: fr ? /Tous les pays/ : /Every country/ })).toBeChecked();
      await field.getByRole('radio', { name: fr ? /Seulement ces pays/ : /Only these countries/ }).check();
      // Countries are named in the reader's language (Intl.DisplayNames): Sénégal in French.
      for (const country of ['Ghana', fr ? 'Sénégal' : 'Senegal', 'Kenya']) await field.getByRole('checkbox', { name: new RegExp(country) }).uncheck();
      await expect(field.getByRole('checkbox', { name: /Côte d’Ivoire/ })).toBeChecked();
      await field.getByRole('button', { name: fr ? 'Enregistrer les pays' : 'Save countries' }).click();
      await expect(page.getByText(fr ? 'Pays Mobile Money enregistrés.' : 'Mobile Money countries saved.')).toBeVisible();
      await field.scrollIntoViewIfNeeded();
      await shot(page, info, `countries-integration-${locale}-${width}`, { fullPage: false });

      const res = await apiFetch(`${API}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount_minor: 250_000, currency: 'XOF', invoice_ref: `CTRY-${run}` }),
      });
      expect(res.status).toBe(201);
      const session = (await res.json()) as { checkout_url: string };
      const payer = await page.context().newPage();
      await payer.setViewportSize({ width, height: isMobile ? 844 : 900 });
      await payer.goto(new URL(session.checkout_url).pathname);
      await payer.getByRole('button', { name: /Mobile Money/ }).click();
      await expect(payer.getByLabel(/^(Country|Pays)$/)).toHaveCount(0); // Côte d'Ivoire alone
      await expect(payer.getByLabel(/^(Network|Opérateur)/).locator('option')).toHaveText([/Choose network|Choisir l’opérateur/, 'Orange Money', 'MTN MoMo', 'Moov Money', 'Wave']);
      await expect(payer.getByLabel(/Mobile Money number|Numéro Mobile Money/)).toHaveAttribute('placeholder', '07 01 23 45 67');
      await shot(payer, info, `countries-xof-ci-only-${locale}-${width}`);
    });

    test('the account page names the instance’s time zone', async ({ page, isMobile }, info) => {
      const width = await widthOf(page, isMobile);
      await signIn(page, TELLER.username);
      await page.goto('/backoffice/account');
      await expect(page.getByTestId('instance-time-zone')).toHaveText(/^Africa\/Accra \(GMT(\+0)?\)$/);
      await expect(page.getByTestId('account-profile')).toContainText(fr ? 'Fuseau horaire de l’instance' : 'Instance time zone');
      await shot(page, info, `countries-account-${locale}-${width}`);
    });
  });
}
