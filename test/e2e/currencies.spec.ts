import AxeBuilder from '@axe-core/playwright';
import { type Browser, type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { STAFF_PASSWORD, TELLER, adminCli, apiFetch, checkoutPath, createSession } from './support';

/**
 * Every currency and locale reads right: a teller types the counted cash as they write amounts
 * (French `196,53`, English `196.53`), an XOF payer is quoted XOF fees and offered Côte d'Ivoire's
 * and Senegal's networks with their number formats, and a KES payer pays by M-Pesa. One browser
 * (contexts per locale), one server, both widths in turn.
 */
const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;
const WIDTHS = [390, 1366] as const;

// The sweep sets its own widths and locales: it runs once, in the desktop project.
test.skip(({ isMobile }) => isMobile, 'sets its own widths');

async function slipFor(amountMinor: number): Promise<{ slip_token: string; amount_minor: number }> {
  const session = await createSession({ amountMinor, withLines: false });
  const quote = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${session.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
  const res = await apiFetch(`${API}/api/v1/checkout/cash-slips`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session.id, amount_minor: quote.surcharges.cash.total_minor }),
  });
  return (await res.json()) as { slip_token: string; amount_minor: number };
}

async function pageIn(browser: Browser, locale: string, width: number): Promise<Page> {
  const context = await browser.newContext({ locale, viewport: { width, height: width < 600 ? 844 : 900 } });
  return context.newPage();
}

async function noSeriousViolations(page: Page, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, `${screen}: serious or critical accessibility violations`).toEqual([]);
}

test('a teller records GHS 196.53 as 196,53 in French and 196.53 in English, on a phone and at the counter', async ({ browser }) => {
  for (const [locale, typed, hint] of [
    ['fr-FR', '196,53', '0,00'],
    ['en-GH', '196.53', '0.00'],
  ] as const) {
    // One signed-in context per locale; each width records its own slip.
    // The back office reads in the browser's language: French labels in fr-FR, English in en-GH.
    const page = await pageIn(browser, locale, WIDTHS[0]);
    await page.goto('/backoffice/');
    await page.getByLabel(/^(Username|Identifiant)$/).fill(TELLER.username);
    await page.getByLabel(/^(Password|Mot de passe)$/).fill(STAFF_PASSWORD);
    await page.getByRole('button', { name: /^(Sign in|Se connecter)$/ }).click();
    const scan = page.getByLabel(/^(Slip barcode or reference|Code-barres ou référence du bordereau)$/);
    await expect(scan).toBeVisible(); // a teller lands on the cash desk
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
      const slip = await slipFor(19_453); // GHS 194.53 + the GHS 2.00 cash fee = 196.53
      expect(slip.amount_minor).toBe(19_653);
      if (width !== WIDTHS[0]) await page.goto('/backoffice/teller/scan');
      await scan.fill(slip.slip_token);
      await scan.press('Enter');
      const counted = page.getByLabel(/^(Counted cash|Espèces comptées) \(GHS\)$/);
      await expect(counted).toBeFocused();
      await expect(counted).toHaveAttribute('placeholder', hint);
      // A French teller typing the English grouping is told, in French, how it would be read, not short-changed.
      if (locale === 'fr-FR') {
        await counted.fill('19.653');
        await counted.press('Enter');
        await expect(page.getByRole('alert')).toContainText(/«\s19\.653\s» est ambigu\s: il serait lu 19\s653,00\sGHS/u);
      }
      await counted.fill(typed);
      await counted.press('Enter');
      await expect(page.getByRole('button', { name: /^(Print receipt|Imprimer le reçu)$/ })).toBeFocused();
      await expect(page.getByTestId('deposit-receipt')).toContainText(locale === 'fr-FR' ? /196,53/ : /196\.53/);
    }
    await page.context().close();
  }
});

test('an XOF session quotes XOF fees and offers Côte d’Ivoire’s and Senegal’s networks with their number formats', async ({ browser }) => {
  const session = await createSession({ amountMinor: 250_000, currency: 'XOF' });
  for (const width of WIDTHS) {
    const page = await pageIn(browser, 'fr-FR', width);
    await page.goto(checkoutPath(session));
    // A French browser: the payer reads French.
    const momo = page.getByRole('button', { name: /Mobile Money/ });
    // 1 % of XOF 250,000 capped at XOF 1,000 (never the GHS 20.00 cap read as XOF 2,000); cash XOF 150.
    await expect(momo).toContainText(/dont 1\s000\sXOF de frais/u);
    await expect(momo).toContainText(/251\s000\sXOF/u);
    await expect(page.getByRole('button', { name: /Espèces/ })).toContainText(/dont 150\sXOF de frais/u);
    await momo.click();
    const country = page.getByLabel('Pays');
    await expect(country.locator('option')).toHaveText(['Côte d’Ivoire', 'Sénégal']);
    await expect(page.getByLabel('Opérateur').locator('option')).toHaveText(['Choisir l’opérateur', 'Orange Money', 'MTN MoMo', 'Moov Money', 'Wave']);
    const phone = page.getByLabel('Numéro Mobile Money');
    await expect(phone).toHaveAttribute('placeholder', '07 01 23 45 67');
    await expect(page.getByText(/Numéro \(Côte d’Ivoire\)\s: 0X XX XX XX XX \(10 chiffres\) ou 225XXXXXXXXXX/u)).toBeVisible();
    await noSeriousViolations(page, `XOF Mobile Money form at ${width}`);

    // A Ghana number is refused by the server in Côte d'Ivoire's own format.
    await page.getByLabel('Opérateur').selectOption('orange');
    await phone.fill('024 123 4567');
    await page.getByRole('button', { name: /^Payer / }).click();
    await expect(page.getByText('Saisissez un numéro mobile valide (Côte d’Ivoire), par exemple 07 01 23 45 67')).toBeVisible();

    // Senegal: its own networks and format.
    await country.selectOption('SN');
    await expect(page.getByLabel('Opérateur').locator('option')).toHaveText(['Choisir l’opérateur', 'Orange Money', 'Wave', 'Free Money']);
    await expect(phone).toHaveAttribute('placeholder', '77 123 45 67');
    await page.context().close();
  }
});

test('a KES session pays by M-Pesa in the sandbox', async ({ browser }) => {
  const session = await createSession({ amountMinor: 150_000, currency: 'KES' });
  const page = await pageIn(browser, 'en-GH', 390);
  await page.goto(checkoutPath(session));
  await expect(page.getByRole('button', { name: /Mobile Money/ })).toContainText(/KES\s1,515\.00/u);
  await page.getByRole('button', { name: /Mobile Money/ }).click();
  await expect(page.getByLabel('Country')).toHaveCount(0); // Kenya alone
  await page.getByLabel('Network').selectOption({ label: 'M-Pesa' });
  await page.getByLabel('Mobile Money number').fill('0712 345678');
  await page.getByRole('button', { name: /^Pay KES/ }).click();
  await expect(page.getByTestId('phone-last4')).toHaveText('5678');
  await page.getByLabel('Verification code').fill('123456');
  await page.getByRole('button', { name: 'Confirm payment' }).click();
  await expect(page.getByTestId('screen-success')).toBeVisible();
  await expect(page.getByTestId('screen-success')).toContainText('MPESA-'); // the M-Pesa sandbox's reference
  await page.setViewportSize({ width: 1366, height: 900 });
  await expect(page.getByTestId('screen-success')).toContainText(/KES\s1,515\.00/u);
  await page.context().close();
});

test('an admin edits fee rules per currency in French: the XOF cash fee changes XOF quotes only', async ({ browser }) => {
  const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
  const merchant = `Dakar Énergie ${run}`;
  const created = adminCli(['integration:create', '--merchant', merchant]);
  adminCli(['staff:create', '--username', `cur.admin.${run}`, '--password', STAFF_PASSWORD, '--role', 'admin']);
  const page = await pageIn(browser, 'fr-FR', 1366);
  await page.goto('/backoffice/');
  // A French browser: the back office reads French.
  await page.getByLabel('Identifiant').fill(`cur.admin.${run}`);
  await page.getByLabel('Mot de passe').fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByRole('link', { name: 'Administration', exact: true }).click();
  await page.getByRole('button', { name: `Gérer l’intégration de ${merchant}` }).click();
  const card = page.getByTestId('integration-card').filter({ hasText: merchant });
  await card.getByLabel('Devise', { exact: true }).selectOption('XOF');
  await card.getByLabel('Moyen').selectOption('cash');
  await expect(card.getByLabel('Fixe (XOF)')).toHaveValue('150'); // the shipped XOF default, no decimals
  await card.getByLabel('Fixe (XOF)').fill('1 250');
  await card.getByRole('button', { name: 'Enregistrer la règle' }).click();
  await expect(card).toContainText('Règle de frais Espèces en XOF enregistrée.');
  await expect(card.locator('tbody tr').filter({ hasText: 'Espèces' })).toContainText(/1\s250\sXOF/u);
  await noSeriousViolations(page, 'fee rules per currency');

  const quote = async (currency: string, amount: number) => {
    const res = await apiFetch(`${API}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount_minor: amount, currency, invoice_ref: `CUR-${currency}-${run}` }),
    });
    const s = (await res.json()) as { id: string };
    const q = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${s.id}/quote`)).json()) as { surcharges: { cash: { fee_minor: number } } };
    return q.surcharges.cash.fee_minor;
  };
  expect(await quote('XOF', 250_000)).toBe(1_250);
  expect(await quote('GHS', 19_453)).toBe(200); // GHS keeps its own default
  await page.context().close();
});
