import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { spawnServer, type Child } from '../support/processes';
import { shot } from './support';
import { budgetNow } from '../support/pace';

/**
 * The setup page of the first-run link, at 390 and 1366 px. The shared e2e server already has
 * staff, so there the page must say Paydesk is set up and lead to the sign-in, never offer a
 * form. The link's whole life is tested against servers of their own, each started the way
 * `npm run serve` starts it on an empty DATA_DIR.
 */
test.skip(({ isMobile }) => isMobile, 'one browser visits both widths');

const SETUP_LINE = /first run: no staff account yet\. Create the first administrator at (http:\/\/\S+) \(valid 30 minutes, once\)/;

/** The page is no wider than the viewport: nothing to scroll sideways. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

test('on an installation already set up, the setup page leads to the sign-in', async ({ page }, info) => {
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: 800 });
    for (const address of ['/backoffice/setup', '/backoffice/setup#token=setup_not_the_printed_one']) {
      await page.goto(address);
      await expect(page.getByRole('heading', { name: 'Paydesk is already set up' })).toBeVisible();
      await expect(page.getByText('An administrator already exists')).toBeVisible();
      await expect(page.getByLabel('Full name')).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Create administrator' })).toHaveCount(0);
    }
    await expectNoSidewaysScroll(page);
    await shot(page, info, `bo-00-setup-${width}`);
  }
  await page.getByRole('link', { name: 'Go to sign-in' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});

/**
 * A fresh server per width (the link is spent by the first): from a new DATA_DIR, the link it
 * prints creates the first administrator, who signs in to the back office and sees themself as
 * its only staff account; the same link then creates no one else.
 */
test('on an empty database the printed link creates the first administrator, once', async ({ page, context }, info) => {
  test.setTimeout(budgetNow(150_000));
  for (const width of [1366, 390]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-e2e-first-run-'));
    let server: Child | undefined;
    try {
      server = await spawnServer(dataDir);
      const served = server;
      await expect.poll(() => SETUP_LINE.exec(served.stdout())?.[1], { message: `the setup line on stdout:\n${served.stdout()}`, timeout: 20_000 }).toBeTruthy();
      const link = SETUP_LINE.exec(served.stdout())![1]!;
      expect(link).toMatch(new RegExp(`^${served.url}/backoffice/setup#token=setup_`));

      // Cookies do not tell ports apart: the previous server's sign-in must not come along.
      await context.clearCookies();
      await page.setViewportSize({ width, height: 800 });
      const admin = { fullName: `Efua Asante ${width}`, username: `first.admin.${width}`, password: `first admin pass ${width}` };
      // Not yet set up: an address without the token explains itself; a token not the printed one is refused.
      await page.goto(new URL('/backoffice/setup', served.url).href);
      await expect(page.getByText('This address has no setup token')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Create administrator' })).toBeDisabled();
      // The token follows the address as it changes, without a reload (a link pasted into the same tab).
      await page.goto(new URL('/backoffice/setup#token=setup_not_the_printed_one', served.url).href);
      await expect(page.getByText('This address has no setup token')).toHaveCount(0);
      await page.getByLabel('Full name').fill('Someone Else');
      await page.getByLabel('Username').fill('someone.else');
      await page.getByLabel('Password (12+ characters)').fill('someone else pass 2026');
      await page.getByRole('button', { name: 'Create administrator' }).click();
      await expect(page.getByText('This setup link is not valid')).toBeVisible();
      // A weak password is refused with the policy's reason, in words, and leaves the link usable.
      await page.goto(link);
      await expect(page.getByText('This setup link is not valid')).toHaveCount(0);
      await page.getByLabel('Password (12+ characters)').fill('short');
      await page.getByRole('button', { name: 'Create administrator' }).click();
      await expect(page.getByText('must be at least 12 characters')).toBeVisible();

      await page.reload();
      await expect(page.getByRole('heading', { name: 'Set up Paydesk' })).toBeVisible();
      await expect(page.getByText('This address has no setup token')).toHaveCount(0);
      await expectNoSidewaysScroll(page);
      await page.getByLabel('Full name').fill(admin.fullName);
      await page.getByLabel('Username').fill(admin.username);
      await page.getByLabel('Password (12+ characters)').fill(admin.password);
      await page.getByRole('button', { name: 'Create administrator' }).click();
      await expect(page.getByRole('heading', { name: 'Administrator created' })).toBeVisible();
      await expect(page.getByText(`${admin.username} can now sign in`)).toBeVisible();
      await expectNoSidewaysScroll(page);
      await shot(page, info, `bo-00-setup-done-${width}`);

      const goOn = page.getByRole('link', { name: 'Go to sign-in' });
      await expect(goOn).toHaveClass(/ui-button--primary/);
      await goOn.click();
      await page.getByLabel('Username').fill(admin.username);
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByText(`${admin.username} · Administrator`)).toBeVisible();
      // On a phone the page list folds behind Menu.
      if (width < 760) await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Administration', exact: true }).click();
      await expect(page.getByRole('heading', { name: 'Administration', level: 1 })).toBeVisible();
      await page.getByRole('tab', { name: 'Staff' }).click();
      const staff = page.getByTestId('staff-list');
      await expect(staff).toContainText(admin.fullName);
      await expect(staff).toContainText(admin.username);
      await expectNoSidewaysScroll(page);

      // Signed out, the same link again: the page says Paydesk is set up and offers no form; the
      // server itself refuses the link, so no second account can be made.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
      await page.goto(link);
      await expect(page.getByRole('heading', { name: 'Paydesk is already set up' })).toBeVisible();
      await expect(page.getByLabel('Full name')).toHaveCount(0);
      const again = await page.request.post(new URL('/api/backoffice/v1/setup', served.url).href, {
        data: { token: new URL(link).hash.replace('#token=', ''), full_name: 'Second Admin', username: `second.admin.${width}`, password: 'second admin pass 2026' },
      });
      expect(again.status()).toBe(401);
      await page.goto(new URL('/backoffice/', served.url).href);
      await page.getByLabel('Username').fill(`second.admin.${width}`);
      await page.getByLabel('Password').fill('second admin pass 2026');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

/**
 * A link left past its 30 minutes: the page says it has expired and how to get a new one, offers
 * no form, and the address without a token says no link is open. Restarting the server on the
 * same database prints a new link, which opens the form.
 */
test('an expired setup link says so, and a restart prints one that works', async ({ page }, info) => {
  test.setTimeout(budgetNow(120_000));
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-e2e-first-run-expired-'));
  let server: Child | undefined;
  try {
    server = await spawnServer(dataDir);
    const first = server;
    await expect.poll(() => SETUP_LINE.exec(first.stdout())?.[1], { message: `the setup line on stdout:\n${first.stdout()}`, timeout: 20_000 }).toBeTruthy();
    const link = SETUP_LINE.exec(first.stdout())![1]!;
    // Half an hour later, as far as the link is concerned.
    const db = new Database(join(dataDir, 'paydesk.sqlite'));
    try {
      db.prepare('update setup_links set expires_at = ?').run(new Date(Date.now() - 60_000).toISOString());
    } finally {
      db.close();
    }
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(link);
      await expect(page.getByRole('heading', { name: 'This setup link has expired' })).toBeVisible();
      await expect(page.getByText('Setup links work once, for 30 minutes. Restart the server on this database')).toBeVisible();
      await expect(page.getByLabel('Full name')).toHaveCount(0);
      await expect(page.getByRole('link', { name: 'Go to sign-in' })).toBeVisible();
      await expectNoSidewaysScroll(page);
      await shot(page, info, `bo-00-setup-expired-${width}`);
    }
    await page.goto(new URL('/backoffice/setup', first.url).href);
    await expect(page.getByRole('heading', { name: 'No setup link is open' })).toBeVisible();
    await expect(page.getByLabel('Full name')).toHaveCount(0);

    await first.stop();
    server = await spawnServer(dataDir);
    const second = server;
    await expect.poll(() => SETUP_LINE.exec(second.stdout())?.[1], { message: `the setup line on stdout:\n${second.stdout()}`, timeout: 20_000 }).toBeTruthy();
    const fresh = SETUP_LINE.exec(second.stdout())![1]!;
    expect(new URL(fresh).hash).not.toBe(new URL(link).hash);
    await page.goto(fresh);
    await expect(page.getByRole('heading', { name: 'Set up Paydesk' })).toBeVisible();
    await expect(page.getByText('This address has no setup token')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Create administrator' })).toBeVisible();
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
