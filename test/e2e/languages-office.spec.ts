import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, seriousAxeViolations, shot, call, signInWithApi, TELLER } from './support';
import { untranslatedText } from './untranslated';

/**
 * The back office's administration, finance, exceptions, audit and webhooks screens speak the
 * reader's language: in the pseudo-locale (`?lang=pseudo`) every text on them is a message, and
 * in a French browser they read in French, at a phone's width and a desktop's without overflow.
 */
const PASSWORD = 'e2e-languages-office-pass';
// Named afresh by every beforeAll: a worker runs it again for each group of this file it is given.
let run = '';
let ADMIN = '';
let FINANCE = '';
let TWICE = '';
let PART = '';
let TELLER_USER = '';
let SUPERVISOR_USER = '';


/** A session for the invoice, paid with the approving test card over the public checkout API. */
async function paidSession(key: string, invoiceRef: string, amount: number): Promise<string> {
  const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: amount, invoice_ref: invoiceRef, currency: 'GHS', customer: { name: 'Ama Mensah' } }, key);
  const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
  await call(`/api/v1/checkout/sessions/${s.id}/card-payments`, {
    amount_minor: quote.surcharges.card.total_minor,
    card_number: '4242424242424242',
    expiry_month: 12,
    expiry_year: 2099,
    cvc: '123',
  });
  return s.id;
}

/** The merchant's webhook receiver: every event fails with a 500, so the screen has failures to show. */
function startReceiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}'));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })));
}

/**
 * A session with a line of every kind a detail is written for: a declined card, a Mobile Money
 * prompt refused with a wrong code, a cash deposit (with the teller's note) rejected with the
 * supervisor's reason, then a second one approved.
 */
async function eventfulSession(key: string, invoiceRef: string): Promise<string> {
  const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 12_000, invoice_ref: invoiceRef, currency: 'GHS', customer: { name: 'Ama Mensah' } }, key);
  const checkout = `/api/v1/checkout/sessions/${s.id}`;
  const quote = async () => (await call<{ surcharges: Record<'card' | 'momo' | 'cash', { total_minor: number }> }>(`${checkout}/quote`)).surcharges;
  await call(`${checkout}/card-payments`, { amount_minor: (await quote()).card.total_minor, card_number: '4000000000000002', expiry_month: 12, expiry_year: 2099, cvc: '123' });
  const momo = await call<{ attempt_reference: string }>(`${checkout}/provider-attempts`, { rail: 'momo', amount_minor: (await quote()).momo.total_minor, operator: 'mtn', phone: '0241234567' });
  await call(`${checkout}/provider-attempts/${momo.attempt_reference}/authorize`, { code: '000000' });
  const token = async (username: string) => (await call<{ token: string }>('/api/backoffice/v1/auth/login', { username, password: PASSWORD })).token;
  const [teller, supervisor] = [await token(TELLER_USER), await token(SUPERVISOR_USER)];
  const deposit = async (note?: string) => {
    const cash = (await quote()).cash.total_minor;
    const slip = await call<{ slip_token: string }>('/api/v1/checkout/cash-slips', { session_id: s.id, amount_minor: cash });
    return (await call<{ deposit: { id: string } }>(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { amount_minor: cash, ...(note ? { note } : {}) }, teller)).deposit.id;
  };
  await call(`/api/backoffice/v1/deposits/${await deposit('Compté deux fois')}/reject`, { reason: 'Deux billets douteux' }, supervisor);
  await call(`/api/backoffice/v1/deposits/${await deposit()}/approve`, {}, supervisor);
  return s.id;
}

let receiver: { server: Server; url: string } | null = null;
let sessionId = '';
let eventfulId = '';

test.describe.configure({ timeout: 180_000 });
test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application (phone widths are checked with setViewportSize)');

test.beforeAll(async ({ browserName: _browser }, info) => {
  if (info.project.name === 'mobile') return;
  run = `${Date.now() % 1_000_000}${process.pid % 1_000}${Math.floor(Math.random() * 1_000)}`;
  [ADMIN, FINANCE, TWICE, PART] = [`lang.admin.${run}`, `lang.fin.${run}`, `LNG-TWICE-${run}`, `LNG-PART-${run}`];
  [TELLER_USER, SUPERVISOR_USER] = [`lang.teller.${run}`, `lang.super.${run}`];
  receiver = await startReceiver();
  const m = adminCli(['integration:create', '--merchant', `Langues SARL ${run}`, '--webhook-url', receiver.url]);
  adminCli(['staff:create', '--username', ADMIN, '--password', PASSWORD, '--role', 'admin']);
  adminCli(['staff:create', '--username', FINANCE, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
  adminCli(['staff:create', '--username', TELLER_USER, '--password', PASSWORD, '--role', 'teller', '--branch', TELLER.branchCode]);
  adminCli(['staff:create', '--username', SUPERVISOR_USER, '--password', PASSWORD, '--role', 'supervisor']);
  const key = m.api_key!;
  await call('/api/v1/revenue-lines', { lines: [{ code: 'RATES', name: 'Property rates' }] }, key);
  for (const ref of [TWICE, PART]) await call('/api/v1/invoice-lines', { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'RATES', amount_minor: 12_000 }] }, key);
  sessionId = await paidSession(key, TWICE, 12_000);
  await paidSession(key, TWICE, 12_000);
  await paidSession(key, PART, 3_000);
  eventfulId = await eventfulSession(key, `LNG-TL-${run}`);
});

test.afterAll(() => {
  receiver?.server.close();
});

const signIn = (page: Page, username: string) => signInWithApi(page, username, PASSWORD);

/** Waits for the screen's data (no loading state left), then lists what is not a message. */
async function leftovers(page: Page, ready: string): Promise<string[]> {
  await expect(page.getByTestId(ready).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.bo-state--loading')).toHaveCount(0, { timeout: 30_000 });
  return untranslatedText(page);
}

test.describe('pseudo-locale: every text is a message', () => {
  test('administration: integrations, keys, endpoints, fees, staff, banks, sandbox', async ({ page }) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/admin?lang=pseudo');
    expect(await leftovers(page, 'integration-card')).toEqual([]);

    // One integration opened: keys, endpoints, payment methods, fee rules.
    const card = page.getByTestId('integration-card').filter({ hasText: `Langues SARL ${run}` });
    await card.getByRole('button').last().click();
    const open = page.getByTestId('integration-card').filter({ has: page.locator('.bo-subhead') });
    await expect(open).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);
    // The revoke confirmation.
    await open.locator('.bo-btn--danger').first().click();
    await expect(page.getByRole('dialog')).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);
    await page.keyboard.press('Escape');

    const tabs = page.getByRole('tab');
    await tabs.nth(1).click();
    expect(await leftovers(page, 'staff-table')).toEqual([]);
    await tabs.nth(2).click();
    expect(await leftovers(page, 'banks-table')).toEqual([]);
    await tabs.nth(3).click();
    await expect(page.locator('.bo-card form')).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);
  });

  test('finance: sessions, a session, invoices, an invoice, revenue lines, export', async ({ page }) => {
    await signIn(page, FINANCE);
    await page.goto('/backoffice/finance?lang=pseudo');
    await expect(page.getByTestId('sessions-list').locator('tbody tr').first()).toBeVisible({ timeout: 30_000 });
    expect(await leftovers(page, 'sessions-list')).toEqual([]);

    await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(sessionId)}?lang=pseudo`);
    expect(await leftovers(page, 'session-detail')).toEqual([]);

    // A timeline with a line of every kind: each detail is a message, names and notes aside.
    await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(eventfulId)}?lang=pseudo`);
    expect(await leftovers(page, 'session-timeline')).toEqual([]);
    const details = page.getByTestId('session-timeline').getByTestId('timeline-detail');
    expect(await details.count()).toBeGreaterThanOrEqual(15);
    for (const text of await details.allTextContents()) expect(text).toContain('⟦');

    await page.goto('/backoffice/finance/invoices?lang=pseudo');
    await expect(page.getByTestId('invoices-list').locator('tbody tr').first()).toBeVisible({ timeout: 30_000 });
    expect(await leftovers(page, 'invoices-list')).toEqual([]);

    for (const ref of [TWICE, PART]) {
      await page.goto(`/backoffice/finance/invoices/${encodeURIComponent(ref)}?lang=pseudo`);
      expect(await leftovers(page, 'invoice-sessions')).toEqual([]);
    }

    await page.goto('/backoffice/finance/revenue-lines?lang=pseudo');
    expect(await leftovers(page, 'revenue-lines')).toEqual([]);

    await page.goto('/backoffice/finance/export?lang=pseudo');
    await expect(page.locator('input[type="date"]').first()).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);
  });

  test('exceptions, with the review dialog', async ({ page }) => {
    await signIn(page, FINANCE);
    await page.goto('/backoffice/exceptions?lang=pseudo');
    expect(await leftovers(page, `exception-${TWICE}`)).toEqual([]);
    await page.getByTestId(`exception-${TWICE}`).locator('.bo-btn--primary').click();
    await expect(page.getByRole('dialog')).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);
    await page.keyboard.press('Escape');
    // The other tabs, empty or not.
    for (const i of [1, 2, 3]) {
      await page.getByRole('tab').nth(i).click();
      await expect(page.locator('.bo-state--loading')).toHaveCount(0);
      expect(await untranslatedText(page)).toEqual([]);
    }
  });

  test('audit trail', async ({ page }) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/audit?lang=pseudo');
    await expect(page.getByTestId('audit-table').locator('tbody tr').first()).toBeVisible({ timeout: 30_000 });
    expect(await leftovers(page, 'audit-table')).toEqual([]);
  });

  test('webhooks: endpoint health, the delivery log and one delivery', async ({ page }) => {
    await signIn(page, FINANCE);
    await page.goto('/backoffice/webhooks?lang=pseudo');
    await expect(page.getByTestId('delivery-log-table').locator('tbody tr').first()).toBeVisible({ timeout: 20_000 });
    expect(await leftovers(page, 'endpoint-health')).toEqual([]);
    await page.getByTestId('delivery-log-table').locator('tbody tr').first().click();
    expect(await leftovers(page, 'delivery-detail')).toEqual([]);
  });
});

/** Nothing wider than the page: a longer French label must wrap, not push the layout sideways. Names the elements that stick out. */
async function expectNoOverflow(page: Page, screen: string): Promise<void> {
  const over = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    // Inside a box that clips or scrolls (a table's own scroller, a phone table's hidden header), content does not widen the page.
    const clipped = (el: HTMLElement): boolean => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible' && p.getBoundingClientRect().right <= width + 0.5) return true;
      }
      return false;
    };
    const out = Array.from(document.body.querySelectorAll<HTMLElement>('*')).filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > width + 0.5 && getComputedStyle(el).position !== 'fixed' && !clipped(el);
    });
    // The innermost ones: an element whose own content sticks out, not each of its ancestors.
    return out
      .filter((el) => !out.some((o) => o !== el && el.contains(o)))
      .slice(0, 8)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} → ${Math.round(el.getBoundingClientRect().right)}px: ${(el.textContent ?? '').trim().slice(0, 40)}`);
  });
  expect(over, `${screen} at ${page.viewportSize()?.width}px: wider than the page`).toEqual([]);
}

async function expectAxeClean(page: Page, screen: string): Promise<void> {
  expect.soft(await seriousAxeViolations(page), `${screen} (fr): serious or critical accessibility violations`).toBe('');
}

test.describe('a French browser', () => {
  test.use({ locale: 'fr-FR' });
  const widths = [1366, 390];

  test('the back-office screens read in French, at a phone’s width and a desktop’s, with no serious axe violation', async ({ page }, info) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/admin');
    await expect(page.getByRole('heading', { level: 1, name: 'Administration' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Intégrations' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Nouvelle intégration de test' })).toBeVisible();
    await expectAxeClean(page, 'admin');
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 });
      await expectNoOverflow(page, 'admin');
      await shot(page, info, `fr-admin-${w}`);
    }
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByRole('tab', { name: 'Personnel' }).click();
    await expect(page.getByRole('heading', { name: 'Nouveau compte du personnel' })).toBeVisible();
    await expectAxeClean(page, 'admin › staff');
    await page.getByRole('tab', { name: 'Banques et agences' }).click();
    await expect(page.getByRole('heading', { name: 'Ajouter une banque' })).toBeVisible();
    await expectAxeClean(page, 'admin › banks');

    await page.goto('/backoffice/audit');
    await expect(page.getByRole('heading', { level: 1, name: 'Journal d’audit' })).toBeVisible();
    await expect(page.getByTestId('audit-table')).toContainText('Connexion');
    await expectAxeClean(page, 'audit');
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 });
      await expectNoOverflow(page, 'audit');
      await shot(page, info, `fr-audit-${w}`);
    }

    await page.setViewportSize({ width: 1366, height: 900 });
    await page.request.post('/api/backoffice/v1/auth/logout', { headers: { 'x-paydesk-csrf': '1' } });
    await signIn(page, FINANCE);
    await page.goto('/backoffice/finance');
    await expect(page.getByRole('tab', { name: 'Factures' })).toBeVisible();
    await expect(page.getByTestId('sessions-list').getByRole('columnheader', { name: /Montant/ })).toBeVisible();
    await expect(page.getByTestId('sessions-list').locator('tbody tr').first()).toBeVisible({ timeout: 30_000 });
    await expectAxeClean(page, 'finance › sessions');
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 });
      await expectNoOverflow(page, 'finance › sessions');
      await shot(page, info, `fr-finance-sessions-${w}`);
    }
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(sessionId)}`);
    await expect(page.getByTestId('session-detail')).toBeVisible({ timeout: 30_000 });
    await expectAxeClean(page, 'finance › one session');

    await page.goto('/backoffice/exceptions');
    await expect(page.getByRole('heading', { level: 1, name: 'Anomalies' })).toBeVisible();
    const twice = page.getByTestId(`exception-${TWICE}`);
    await expect(twice).toContainText('Payée deux fois');
    await expect(twice).toContainText('en 2 paiements');
    await expect(page.getByTestId(`exception-${PART}`)).toContainText('reste dû');
    await expectAxeClean(page, 'exceptions');
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 });
      await expectNoOverflow(page, 'exceptions');
      await shot(page, info, `fr-exceptions-${w}`);
    }

    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto('/backoffice/webhooks');
    await expect(page.getByRole('heading', { name: 'Journal des envois' })).toBeVisible();
    await expect(page.getByTestId('delivery-log-table').locator('tbody tr').first()).toBeVisible({ timeout: 20_000 });
    await expectAxeClean(page, 'webhooks');
  });

  test('a session’s timeline reads in French, its detail lines too, with amounts in French figures', async ({ page }, info) => {
    await signIn(page, FINANCE);
    await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(eventfulId)}`);
    const timeline = page.getByTestId('session-timeline');
    await expect(timeline).toContainText('Historique', { timeout: 30_000 });
    const details = timeline.getByTestId('timeline-detail');
    await expect(details.first()).toBeVisible();
    const lines = await details.allTextContents();
    // No English sentence left: the words the server's English details are made of.
    const english = /\b(?:charged|to the merchant|paid by|fee|for invoice|Reason|number ending|ending|now|by|payment|approved|declined|rejected|recorded|awaiting|sent|prompt)\b/;
    expect(lines.filter((l) => english.test(l))).toEqual([]);
    // Default GHS fees: card 1.95 % borne by the merchant, Mobile Money 1 % and cash GHS 2.00 borne by the payer.
    const expected = [
      /^120,00\sGHS pour la facture LNG-TL-\d+$/u,
      /^120,00\sGHS débités · frais de carte de 2,34\sGHS payés par le marchand · 117,66\sGHS pour le marchand · Visa se terminant par 0002$/u,
      /^Motif : carte refusée$/u,
      /^Paiement par carte transmis au fournisseur de cartes$/u,
      /^Paiement par carte refusé$/u,
      /^121,20\sGHS débités · frais Mobile Money de 1,20\sGHS payés par le payeur · 120,00\sGHS pour le marchand · MTN MoMo, numéro se terminant par 4567$/u,
      /^Motif : code incorrect$/u,
      /^Paiement Mobile Money : demande envoyée au téléphone du payeur$/u,
      /^122,00\sGHS débités · frais d’espèces de 2,00\sGHS payés par le payeur · 120,00\sGHS pour le marchand · désormais : Annulé$/u,
      /^122,00\sGHS débités · frais d’espèces de 2,00\sGHS payés par le payeur · 120,00\sGHS pour le marchand · désormais : Payé$/u,
      /^122,00\sGHS par lang\.teller\.\d+ · « Compté deux fois »$/u,
      /^122,00\sGHS par lang\.teller\.\d+$/u,
      /^par lang\.super\.\d+ · Deux billets douteux$/u,
      /^par lang\.super\.\d+$/u,
      /^Dépôt d’espèces enregistré par lang\.teller\.\d+, en attente de validation par un superviseur$/u,
      /^Dépôt d’espèces rejeté par lang\.super\.\d+ : Deux billets douteux$/u,
      /^Dépôt d’espèces approuvé par lang\.super\.\d+$/u,
    ];
    for (const sentence of expected) expect(lines.some((l) => sentence.test(l)), `${sentence} among ${JSON.stringify(lines, null, 1)}`).toBe(true);
    await expectAxeClean(page, 'finance › a session’s timeline');
    await shot(page, info, 'fr-finance-timeline-1366');
  });

  test('an amount the admin types wrong is explained in French: fee rules and the sandbox transfer', async ({ page }) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/admin');
    const card = page.getByTestId('integration-card').filter({ hasText: `Langues SARL ${run}` });
    await card.getByRole('button').last().click();
    const open = page.getByTestId('integration-card').filter({ has: page.locator('.bo-subhead') });
    await expect(open).toBeVisible();
    // The fee rule's fixed part, typed with the English grouping: unclear in French, and said so in French.
    await open.getByLabel('Fixe (GHS)').fill('1.234');
    await open.getByRole('button', { name: 'Enregistrer la règle' }).click();
    await expect(open.getByText(/^Fixe\s:\s«\s1\.234\s» est ambigu\s: il serait lu 1\s234,00\sGHS\. Saisissez 1\s234,00 si c’est bien ce montant, ou écrivez les décimales avec «\s,\s», par exemple 1\s234,50\.$/u)).toBeVisible();
    await open.getByLabel('Fixe (GHS)').fill('');
    await open.getByLabel('Plafond (GHS)').fill('beaucoup');
    await open.getByRole('button', { name: 'Enregistrer la règle' }).click();
    await expect(open.getByText(/^Plafond\s:\s«\sbeaucoup\s» n’est pas un montant\s: saisissez-le sous la forme 1\s234,50\.$/u)).toBeVisible();
    await open.getByLabel('Plafond (GHS)').fill('');
    await open.getByLabel('Pourcentage').fill('1,9555');
    await open.getByRole('button', { name: 'Enregistrer la règle' }).click();
    await expect(open.getByText(/^Pourcentage\s:\s«\s1,9555\s» a 4 décimales\s; les pourcentages en ont 2\. Saisissez-le sous la forme 1,95\.$/u)).toBeVisible();

    // The sandbox transfer: an XOF amount has no decimals.
    await page.getByRole('tab', { name: 'Bac à sable' }).click();
    await page.getByLabel('Référence de paiement').fill('PDT-NONE');
    await page.getByLabel('Devise').selectOption('XOF');
    await page.getByLabel('Montant (XOF)').fill('12,5');
    await page.getByRole('button', { name: 'Confirmer le virement' }).click();
    await expect(page.getByText(/^Les montants en XOF n’ont pas de décimales\s: saisissez un nombre entier, par exemple 1\s234\.$/u)).toBeVisible();
  });

  test('the Mobile Money countries are named in French', async ({ page }) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/admin');
    const card = page.getByTestId('integration-card').filter({ hasText: `Langues SARL ${run}` });
    await card.getByRole('button').last().click();
    const countries = page.getByTestId('momo-countries');
    await expect(countries.locator('[data-country="CI"]')).toHaveText(/^Côte d’Ivoire\s\(XOF\)$/u);
    await expect(countries.locator('[data-country="SN"]')).toHaveText(/^Sénégal\s\(XOF\)$/u);
    await expect(countries.locator('[data-country="GH"]')).toHaveText(/^Ghana\s\(GHS\)$/u);
    await expect(countries.getByRole('radio', { name: 'Tous les pays de la devise de la session' })).toBeChecked();
  });

  test('switching the language in the staff menu keeps what is being typed', async ({ page }) => {
    await signIn(page, ADMIN);
    await page.goto('/backoffice/admin');
    await expect(page.getByRole('heading', { name: 'Nouvelle intégration de test' })).toBeVisible();
    await page.getByLabel('Nom du marchand').fill('Marché de Treichville');
    await page.getByLabel('URL du webhook (facultatif)').fill('https://treichville.example/hooks');
    await page.getByRole('combobox', { name: 'Langue' }).selectOption('en');
    await expect(page.getByRole('heading', { name: 'New test integration' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Integrations' })).toBeVisible();
    await expect(page.getByLabel('Merchant name')).toHaveValue('Marché de Treichville');
    await expect(page.getByLabel('Webhook URL (optional)')).toHaveValue('https://treichville.example/hooks');
    await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
    await expect(page.getByRole('heading', { name: 'Nouvelle intégration de test' })).toBeVisible();
    await expect(page.getByLabel('Nom du marchand')).toHaveValue('Marché de Treichville');
  });
});
