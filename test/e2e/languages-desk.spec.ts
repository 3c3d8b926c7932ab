import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { STAFF_PASSWORD, TELLER as DESK_TELLER, adminCli, apiFetch, createSession, staffCall } from './support';
import { untranslatedText } from './untranslated';

/**
 * The back office in English and French: every message of the shell, sign-in, password,
 * overview and home screens comes from the catalogue (the pseudo-locale shows no stray
 * English), a French browser gets French before sign-in, and the language chosen in the staff
 * menu is the account's: it comes back at the next sign-in, whatever the browser says. The walk
 * also opens the supervisor's review queue with a deposit waiting, that deposit's detail, and a
 * teller's cash desk with the deposit in its recent list and today's cash-up.
 */
const PASSWORD = STAFF_PASSWORD; // staffCall signs in with it
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const ADMIN = `ld.admin.${run}`;
const SUPERVISOR = `ld.super.${run}`;
const TELLER = `ld.teller.${run}`;
const FRENCH_TELLER = `ld.teller.fr.${run}`;

async function signIn(page: Page, username: string, labels = { user: 'Username', password: 'Password', submit: 'Sign in' }): Promise<void> {
  await page.getByLabel(labels.user).fill(username);
  await page.getByLabel(labels.password).fill(PASSWORD);
  await page.getByRole('button', { name: labels.submit }).click();
}

/** Opens `path` in the pseudo-locale (the cookie keeps the sign-in) and lists what is not a message. */
async function strayText(page: Page, path: string, ready: (page: Page) => Promise<void>): Promise<string[]> {
  await page.goto(`${path}?lang=pseudo`);
  await ready(page);
  return untranslatedText(page);
}

test.describe.serial('the back office in English and French', () => {
  test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application');
  test.beforeAll(() => {
    for (const [username, role] of [
      [ADMIN, 'admin'],
      [SUPERVISOR, 'supervisor'],
      [TELLER, 'teller'],
      [FRENCH_TELLER, 'teller'],
    ] as const) {
      adminCli(['staff:create', '--username', username, '--password', PASSWORD, '--role', role, ...(role === 'teller' ? ['--branch', DESK_TELLER.branchCode] : [])]);
    }
  });

  test('every screen of each role reads from the catalogue (pseudo-locale)', async ({ page }) => {
    // A deposit the teller recorded, waiting for the supervisor's review.
    const session = await createSession();
    const api = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}/api/v1/checkout`;
    const quote = (await (await apiFetch(`${api}/sessions/${session.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
    const slipRes = await apiFetch(`${api}/cash-slips`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: session.id, amount_minor: quote.surcharges.cash.total_minor }),
    });
    const slip = (await slipRes.json()) as { slip_token: string; amount_minor: number };
    const { deposit } = await staffCall<{ deposit: { id: string } }>(TELLER, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });

    await page.goto('/backoffice/?lang=pseudo');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en-XA');
    await expect(page.locator('form.sign-in__card')).toBeVisible();
    expect(await untranslatedText(page)).toEqual([]);

    const nav = (p: Page) => expect(p.locator('#shell-nav')).toBeVisible();
    for (const user of [ADMIN, SUPERVISOR, TELLER]) {
      await page.goto('/backoffice/');
      await signIn(page, user);
      await expect(page.getByRole('navigation', { name: 'Back office' })).toBeVisible();
      if (user !== TELLER) {
        expect(await strayText(page, '/backoffice/', async (p) => {
          await nav(p);
          await expect(p.locator('.bo-areas')).toBeVisible();
          if (user === ADMIN) await expect(p.getByTestId('finance-overview').or(p.locator('.bo-state--empty'))).toBeVisible();
          if (user === SUPERVISOR) await expect(p.getByTestId('waiting-deposits')).toBeVisible();
        }), user).toEqual([]);
      }
      if (user === SUPERVISOR) {
        expect(await strayText(page, '/backoffice/review', async (p) => {
          await nav(p);
          await expect(p.getByTestId('review-queue-table').locator('tbody tr').first()).toBeVisible();
          await expect(p.getByTestId('deposit-history')).toBeVisible();
        }), 'review queue').toEqual([]);
        expect(await strayText(page, `/backoffice/review/${encodeURIComponent(deposit.id)}`, async (p) => {
          await nav(p);
          await expect(p.getByTestId('deposit-detail')).toBeVisible();
          await expect(p.getByTestId('deposit-detail').getByRole('button').first()).toBeVisible();
        }), 'deposit detail').toEqual([]);
      }
      if (user === TELLER) {
        expect(await strayText(page, '/backoffice/', async (p) => {
          await nav(p);
          await expect(p.getByTestId('recent-deposits').locator('tbody tr').first()).toBeVisible();
          await expect(p.getByTestId('shift-total-row')).toBeVisible();
        }), 'cash desk').toEqual([]);
      }
      expect(await strayText(page, '/backoffice/account', async (p) => {
        await nav(p);
        await expect(p.getByTestId('change-password')).toBeVisible();
      }), user).toEqual([]);
      expect(await strayText(page, '/backoffice/no-such-page', async (p) => {
        await nav(p);
        await expect(p.locator('.placeholder')).toBeVisible();
      }), user).toEqual([]);
      await page.locator('.shell__header button.ui-button, .shell__header button').last().click();
      await expect(page.locator('form.sign-in__card')).toBeVisible();
    }
  });

  test.describe('a French browser', () => {
    test.use({ locale: 'fr-FR' });

    test('gets French before sign-in, and the account’s language after', async ({ page }) => {
      await page.goto('/backoffice/');
      await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
      await expect(page.getByRole('heading', { name: 'Back-office Paydesk' })).toBeVisible();
      await signIn(page, TELLER, { user: 'Identifiant', password: 'Mot de passe', submit: 'Se connecter' });
      await expect(page.getByRole('navigation', { name: 'Back-office' })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Caisse', exact: true })).toBeVisible();
      await expect(page.locator('.shell__user')).toContainText('Caissier');
      await page.getByRole('button', { name: 'Se déconnecter' }).click();
      await expect(page.getByRole('button', { name: 'Se connecter' })).toBeVisible();
    });
  });

  test('the language chosen in the staff menu is the account’s: kept after sign-out and sign-in', async ({ page }) => {
    await page.goto('/backoffice/');
    await signIn(page, SUPERVISOR);
    await page.getByLabel('Language').selectOption('fr');
    await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
    await expect(page.getByRole('link', { name: 'Contrôle des dépôts' }).first()).toBeVisible();
    await page.getByRole('button', { name: 'Se déconnecter' }).click();

    // Signed out, the page follows the browser (English here), not the last person's choice.
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', /^en/);
    await signIn(page, SUPERVISOR);
    await expect(page.getByRole('button', { name: 'Se déconnecter' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
    await expect(page.getByLabel('Langue')).toHaveValue('fr');

    // Another account on the same browser keeps its own (the browser's) language.
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await signIn(page, ADMIN);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();

    // Back to English for the supervisor, so other specs read English.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, SUPERVISOR);
    await page.getByLabel('Langue').selectOption('en');
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  test('a language chosen before the account’s language arrives stays chosen', async ({ page }) => {
    // The GET /me that follows the sign-in is answered before the choice and arrives after it (as on a busy machine).
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.goto('/backoffice/');
    await expect(page.getByLabel('Username')).toBeVisible(); // the page's own GET /me has answered
    await page.route('**/api/backoffice/v1/me', async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const answer = await route.fetch(); // the server answers now, before the choice is saved
      await held;
      await route.fulfill({ response: answer });
    });
    await signIn(page, SUPERVISOR);
    await page.getByLabel('Language').selectOption('fr');
    await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
    const late = page.waitForResponse((r) => r.url().endsWith('/api/backoffice/v1/me') && r.request().method() === 'GET');
    release();
    await late;
    await expect(page.getByRole('button', { name: 'Se déconnecter' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
    // Back to English for the supervisor, so other specs read English.
    await page.getByLabel('Langue').selectOption('en');
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  test.describe('an English browser in another zone', () => {
    test.use({ locale: 'en-US', timezoneId: 'America/New_York' });

    test('the cash desk and the cash-up sheet follow the language chosen in the staff menu and the instance’s zone, not the browser’s', async ({ page }) => {
      const newSlip = async () => {
        const session = await createSession();
        const api = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}/api/v1/checkout`;
        const quote = (await (await apiFetch(`${api}/sessions/${session.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
        const res = await apiFetch(`${api}/cash-slips`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ session_id: session.id, amount_minor: quote.surcharges.cash.total_minor }),
        });
        return (await res.json()) as { slip_token: string; amount_minor: number };
      };
      // A deposit today, so the sheet lists one with its time.
      const slip = await newSlip();
      const { deposit } = await staffCall<{ deposit: { created_at: string } }>(FRENCH_TELLER, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
      const me = await staffCall<{ time_zone: string }>(FRENCH_TELLER, 'GET', '/me');

      await page.goto('/backoffice/');
      await signIn(page, FRENCH_TELLER);
      await page.getByLabel('Language').selectOption('fr');

      // At the cash desk, an amount that could be read two ways is explained in French.
      const waiting = await newSlip();
      await page.goto('/backoffice/teller/scan');
      const scan = page.getByLabel('Code-barres ou référence du bordereau');
      await scan.fill(waiting.slip_token);
      await scan.press('Enter');
      const counted = page.getByLabel(/Espèces comptées/);
      await expect(counted).toBeFocused();
      await counted.fill('19.653');
      await counted.press('Enter');
      await expect(page.getByRole('alert')).toContainText(/«\s19\.653\s» est ambigu\s: il serait lu 19\s653,00\sGHS\. Saisissez 19\s653,00 si c’est bien ce montant, ou écrivez les décimales avec «\s,\s», par exemple 1\s234,50\./u);

      await page.goto('/backoffice/cash-up');
      const sheet = page.getByTestId('cash-up-sheet');
      await expect(sheet).toBeVisible();
      const day = await sheet.locator('.cu-sheet__head time').getAttribute('datetime');
      expect(day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // The day in French, as the server dated it: “dimanche 29 novembre 2026”, not “Sunday, November 29, 2026”.
      const french = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
      await expect(sheet.locator('.cu-sheet__head time')).toHaveText(french);
      await expect(sheet.locator('.cu-sheet__head')).toContainText(`(${me.time_zone})`);
      // The deposit’s time in the instance’s zone and in French (24-hour), not New York’s.
      const at = new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit', timeZone: me.time_zone }).format(new Date(deposit.created_at));
      await expect(sheet.locator(`time[datetime="${deposit.created_at}"]`)).toHaveText(at);
    });
  });
});
