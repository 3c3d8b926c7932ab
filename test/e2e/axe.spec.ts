import { expect, test, type Page } from '@playwright/test';
import { checkoutPath, createSession, adminCli, apiFetch, seriousAxeViolations, TELLER, signInWithForm } from './support';

const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;

async function json<T>(path: string, init: { method?: string; token?: string; key?: string; body?: unknown } = {}): Promise<T> {
  const auth = init.token ?? init.key;
  const res = await apiFetch(`${API}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    // A fresh connection per call: a kept-alive one the server already closed fails the seed.
    headers: { connection: 'close', ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!res.ok) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** A paid cash session and one under review, so lists, badges and the review queue have rows to scan. */
async function seed(apiKey: string, teller: string, supervisor: string): Promise<void> {
  const login = async (u: string) => (await json<{ token: string }>('/api/backoffice/v1/auth/login', { body: { username: u, password: PASSWORD } })).token;
  const [t, s] = [await login(teller), await login(supervisor)];
  for (const approve of [true, false]) {
    const session = await json<{ id: string }>('/api/v1/sessions', { key: apiKey, body: { amount_minor: 12_000, invoice_ref: `AXE-${run}-${approve ? 'PAID' : 'OPEN'}`, customer: { name: 'Abena Owusu' } } });
    const quote = await json<{ surcharges: { cash: { total_minor: number } } }>(`/api/v1/checkout/sessions/${session.id}/quote`);
    const slip = await json<{ slip_token: string }>('/api/v1/checkout/cash-slips', { body: { session_id: session.id, amount_minor: quote.surcharges.cash.total_minor } });
    const dep = await json<{ deposit: { id: string } }>(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { token: t, body: { amount_minor: quote.surcharges.cash.total_minor } });
    if (approve) await json(`/api/backoffice/v1/deposits/${dep.deposit.id}/approve`, { token: s, body: {} });
  }
}

/**
 * Accessibility: an axe-core scan of every back-office screen and every payer screen, at the
 * desktop and the phone size. No serious or critical violation is allowed (WCAG 2.1 A/AA rules).
 */
const PASSWORD = 'e2e-axe-pass-1234';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
const user = (role: string) => `axe.${role}.${run}`;


async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  expect.soft(await seriousAxeViolations(page), `${screen}: serious or critical accessibility violations`).toBe('');
}

const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

test.describe('axe: back office', () => {
  // One set of staff and data per project: the screens are then scanned in turn.
  test.describe.configure({ mode: 'serial' });
  let merchantId = '';
  test.beforeAll(async () => {
    test.setTimeout(180_000); // five operator-CLI runs on a busy machine
    const a = adminCli(['integration:create', '--merchant', `Axe Water ${run}`, '--webhook-url', 'http://127.0.0.1:9/unreachable']);
    merchantId = a.merchant_id!;
    for (const role of ROLES) adminCli(['staff:create', '--username', user(role), '--password', PASSWORD, '--role', role, ...(role === 'finance' ? ['--merchant', merchantId] : []), ...(role === 'teller' ? ['--branch', TELLER.branchCode] : [])]);
    await seed(a.api_key!, user('teller'), user('supervisor'));
  });

  test('sign-in screen', async ({ page }) => {
    await page.goto('/backoffice/');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expectNoSeriousViolations(page, 'sign-in');
  });

  for (const role of ROLES) {
    test(`every screen a ${role} can open`, async ({ page }) => {
      // An admin's screens and tabs are ~15 scans: 57 s of the default 60 s on a slow 2-core machine.
      test.setTimeout(180_000);
      await signIn(page, user(role));
      await expectNoSeriousViolations(page, `${role}: overview`);
      // On a phone the page list is folded behind Menu: read the links from the DOM.
      const links = await page.locator('#shell-nav a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname));
      for (const path of links) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expectNoSeriousViolations(page, `${role}: ${path}`);
        // Tabs (finance, administration): each is its own screen.
        for (const tab of await page.getByRole('tab').all()) {
          await tab.click();
          await expectNoSeriousViolations(page, `${role}: ${path} › ${(await tab.innerText()).trim()}`);
        }
      }
    });
  }

  // Dark theme (the system setting): the sign-in page and the main screens of the roles that
  // between them open every kind of screen (lists, queue, forms), without their tabs again.
  for (const role of ['supervisor', 'admin'] as const) {
    test(`dark: the ${role}'s screens`, async ({ page }) => {
      test.setTimeout(180_000);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.goto('/backoffice/');
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
      if (role === 'admin') await expectNoSeriousViolations(page, 'dark: sign-in');
      await signIn(page, user(role));
      await expectNoSeriousViolations(page, `dark: ${role}: overview`);
      const links = await page.locator('#shell-nav a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname));
      for (const path of links) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expectNoSeriousViolations(page, `dark: ${role}: ${path}`);
      }
    });
  }
});

test.describe('axe: payer pages in the dark theme', () => {
  test.use({ colorScheme: 'dark' });
  test('every payer page', async ({ page }) => {
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await expect(page.getByRole('button', { name: /^Card/ })).toBeVisible();
    await expectNoSeriousViolations(page, 'dark checkout: method picker');
    for (const method of [/^Card/, /^Mobile Money/, /^Bank transfer/, /^Cash/]) {
      await page.goto(checkoutPath(session));
      await page.getByRole('button', { name: method }).click();
      await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
      await expectNoSeriousViolations(page, `dark checkout: ${method.source}`);
    }
    await page.goto(checkoutPath(session));
    await page.getByRole('button', { name: /^Card/ }).click();
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').pressSequentially('1230');
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel(/Name on card/).fill('Ama Mensah');
    await page.getByRole('button', { name: /^Pay GHS/ }).click();
    await expect(page.getByTestId('screen-success')).toBeVisible();
    await expectNoSeriousViolations(page, 'dark checkout: success');
    await page.goto('/checkout/cs_test_doesnotexist000000');
    await expectNoSeriousViolations(page, 'dark checkout: not found');
  });
});

test.describe('axe: payer pages', () => {
  test('method picker and each payment method', async ({ page }) => {
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await expect(page.getByRole('button', { name: /^Card/ })).toBeVisible();
    await expectNoSeriousViolations(page, 'checkout: method picker');
    for (const method of [/^Card/, /^Mobile Money/, /^Bank transfer/, /^Cash/]) {
      await page.goto(checkoutPath(session));
      await page.getByRole('button', { name: method }).click();
      await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
      await expectNoSeriousViolations(page, `checkout: ${method.source}`);
    }
  });

  test('success, and a checkout that does not exist', async ({ page }) => {
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await page.getByRole('button', { name: /^Card/ }).click();
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry date').pressSequentially('1230');
    await page.getByLabel('Security code').fill('123');
    await page.getByLabel(/Name on card/).fill('Ama Mensah');
    await page.getByRole('button', { name: /^Pay GHS/ }).click();
    await expect(page.getByTestId('screen-success')).toBeVisible();
    await expectNoSeriousViolations(page, 'checkout: success');
    await page.goto('/checkout/cs_test_doesnotexist000000');
    await expectNoSeriousViolations(page, 'checkout: not found');
  });
});
