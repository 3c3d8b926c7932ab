import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { shot, adminCli } from './support';

/**
 * The sign-in survives a reload and a pasted deep link (an HttpOnly
 * cookie page script cannot read), sign-out ends it; an admin resets a password and the user
 * must choose their own at the next sign-in.
 */
const PASSWORD = 'e2e-sign-in-pass-phrase';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const ADMIN = `si.admin.${run}`;
const TELLER = `si.teller.${run}`;


async function signIn(page: Page, username: string, password = PASSWORD): Promise<void> {
  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test.describe.serial('back office sign-in', () => {
  test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application');
  test.beforeAll(() => {
    adminCli(['staff:create', '--username', ADMIN, '--password', PASSWORD, '--role', 'admin']);
    adminCli(['staff:create', '--username', TELLER, '--password', PASSWORD, '--role', 'teller']);
  });

  test('a reload and a pasted deep link keep the sign-in; the token is not readable by script; sign-out ends it', async ({ page, context }) => {
    await signIn(page, ADMIN);
    const nav = page.getByRole('navigation', { name: 'Back office' });
    await expect(nav).toBeVisible();
    expect(await page.evaluate(() => document.cookie)).not.toContain('stf_');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain('stf_');
    const cookie = (await context.cookies()).find((c) => c.name === 'paydesk_staff');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/backoffice' });

    await page.reload();
    await expect(nav).toBeVisible();
    await expect(page.getByText(`${ADMIN} · admin`)).toBeVisible();

    // A deep link pasted into a new tab of the same browser.
    const tab = await context.newPage();
    await tab.goto('/backoffice/audit');
    await expect(tab.getByRole('heading', { name: 'Audit trail' })).toBeVisible();
    await tab.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await page.goto('/backoffice/admin');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  });

  test('30 minutes without input signs the user out; input keeps the sign-in', async ({ page }) => {
    await page.clock.install();
    await signIn(page, ADMIN);
    const nav = page.getByRole('navigation', { name: 'Back office' });
    await expect(nav).toBeVisible();
    await page.clock.fastForward('25:00');
    await page.keyboard.press('Shift');
    await page.clock.fastForward('25:00');
    await expect(nav).toBeVisible();
    await page.clock.fastForward('05:01');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    // The token was revoked too: a reload does not bring the user back.
    await page.reload();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  });

  test('an admin resets a password (confirmed); the user must choose their own before anything else', async ({ page, browser }, info) => {
    await signIn(page, ADMIN);
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await page.getByRole('tab', { name: 'Staff' }).click();
    const section = page.getByTestId('staff-account-actions');
    await section.getByLabel('Staff member').selectOption({ label: `${TELLER} (Teller)` }); // the role in words
    await section.getByLabel('Temporary password (12+ characters)').fill('temporary-e2e-4821');
    await section.getByRole('button', { name: 'Reset password' }).click();
    const dialog = page.getByRole('dialog', { name: `Reset ${TELLER}’s password?` });
    await expect(dialog).toBeVisible();
    await shot(page, info, 'si-01-admin-reset-confirm');
    await dialog.getByRole('button', { name: 'Reset password' }).click();
    await expect(section.getByRole('status')).toContainText(`${TELLER} must choose a new password`);

    const teller = await (await browser.newContext()).newPage();
    await signIn(teller, TELLER, 'temporary-e2e-4821');
    const form = teller.getByTestId('change-password');
    await expect(form.getByRole('heading', { name: 'Choose your own password' })).toBeVisible();
    await form.getByLabel('Password you were given').fill('temporary-e2e-4821');
    await form.getByLabel('New password', { exact: true }).fill('password1234');
    await form.getByLabel('New password again').fill('password1234');
    await form.getByRole('button', { name: 'Save new password' }).click();
    await expect(form.getByText(/commonly used password/)).toBeVisible();
    await shot(teller, info, 'si-02-forced-change-refused');
    await form.getByLabel('New password', { exact: true }).fill('mango tree by the lagoon');
    await form.getByLabel('New password again').fill('mango tree by the lagoon');
    await form.getByRole('button', { name: 'Save new password' }).click();
    await expect(teller.getByRole('navigation', { name: 'Back office' })).toBeVisible();
    await teller.reload();
    await expect(teller.getByRole('navigation', { name: 'Back office' })).toBeVisible();
  });
});
