import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, atCounterWidth, call, cashSlip, checkoutPath, createSession, createStaff, expectNoSeriousViolations, runTag, signInWithForm, staffToken } from './support';
import { budgetNow } from '../support/pace';

/** A paid cash session and one under review, so lists, badges and the review queue have rows to scan. */
async function seed(apiKey: string, teller: string, supervisor: string): Promise<void> {
  const [t, s] = [await staffToken(teller, PASSWORD), await staffToken(supervisor, PASSWORD)];
  for (const approve of [true, false]) {
    const session = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 12_000, invoice_ref: `AXE-${run}-${approve ? 'PAID' : 'OPEN'}`, customer: { name: 'Abena Owusu' } }, apiKey);
    const slip = await cashSlip(session.id);
    const dep = await call<{ deposit: { id: string } }>(`/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor }, t);
    if (approve) await call(`/api/backoffice/v1/deposits/${dep.deposit.id}/approve`, {}, s);
  }
}

/**
 * Accessibility: an axe-core scan of every back-office screen and every payer screen, at the
 * desktop and the phone size. No serious or critical violation is allowed (WCAG 2.1 A/AA rules).
 */
const PASSWORD = 'e2e-axe-pass-1234';
// Set in the back office's beforeAll: each project and repetition has its own staff and data.
let run = '';
const ROLES = ['teller', 'supervisor', 'finance', 'admin'] as const;
const user = (role: string) => `axe.${role}.${run}`;


const signIn = (page: Page, username: string) => signInWithForm(page, username, PASSWORD);

test.describe('axe: back office', () => {
  // One set of staff and data per project: the screens are then scanned in turn.
  test.describe.configure({ mode: 'serial' });
  let merchantId = '';
  test.beforeAll(async ({ browserName: _browser }, info) => {
    test.setTimeout(budgetNow(180_000)); // five operator-CLI runs on a busy machine
    run = runTag(info);
    const a = adminCli(['integration:create', '--merchant', `Axe Water ${run}`, '--webhook-url', 'http://127.0.0.1:9/unreachable']);
    merchantId = a.merchant_id!;
    for (const role of ROLES) createStaff(user(role), role, { password: PASSWORD, merchantId: role === 'finance' ? merchantId : undefined });
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
      test.setTimeout(budgetNow(180_000));
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
  // The mobile project at 390 px, the desktop project at the counter's 1366 px.
  test.describe('dark', () => {
    test.beforeEach(atCounterWidth);
    for (const role of ['supervisor', 'admin'] as const) {
      test(`dark: the ${role}'s screens`, async ({ page }) => {
        test.setTimeout(budgetNow(180_000));
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
});

/** The method picker, then each way to pay, each scanned; `theme` names them in the report. */
async function scanMethods(page: Page, theme: string): Promise<void> {
  const session = await createSession();
  await page.goto(checkoutPath(session));
  await expect(page.getByRole('button', { name: /^Card/ })).toBeVisible();
  await expectNoSeriousViolations(page, `${theme}checkout: method picker`);
  for (const method of [/^Card/, /^Mobile Money/, /^Bank transfer/, /^Cash/]) {
    await page.goto(checkoutPath(session));
    await page.getByRole('button', { name: method }).click();
    await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
    await expectNoSeriousViolations(page, `${theme}checkout: ${method.source}`);
  }
}

/** A session paid by card through the form (its success screen), then a checkout that does not exist, each scanned. */
async function scanSuccessAndNotFound(page: Page, theme: string): Promise<void> {
  await page.goto(checkoutPath(await createSession()));
  await page.getByRole('button', { name: /^Card/ }).click();
  await page.getByLabel('Card number').fill('4242424242424242');
  await page.getByLabel('Expiry date').pressSequentially('1230');
  await page.getByLabel('Security code').fill('123');
  await page.getByLabel(/Name on card/).fill('Ama Mensah');
  await page.getByRole('button', { name: /^Pay GHS/ }).click();
  await expect(page.getByTestId('screen-success')).toBeVisible();
  await expectNoSeriousViolations(page, `${theme}checkout: success`);
  await page.goto('/checkout/cs_test_doesnotexist000000');
  await expectNoSeriousViolations(page, `${theme}checkout: not found`);
}

test.describe('axe: payer pages in the dark theme', () => {
  test.use({ colorScheme: 'dark' });
  test.beforeEach(atCounterWidth);
  test('every payer page', async ({ page }) => {
    await scanMethods(page, 'dark ');
    await scanSuccessAndNotFound(page, 'dark ');
  });
});

test.describe('axe: payer pages', () => {
  test('method picker and each payment method', async ({ page }) => {
    await scanMethods(page, '');
  });

  test('success, and a checkout that does not exist', async ({ page }) => {
    await scanSuccessAndNotFound(page, '');
  });
});
