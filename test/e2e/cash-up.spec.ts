import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { STAFF_PASSWORD, atCounterWidth, cashSlip, createDeskStaff, createSession, createStaff, expectNoSeriousViolations, runTag, shot, shotsAtBothWidths, signInWithForm, staffCall } from './support';
import { untranslatedText } from './untranslated';
import { budgetNow } from '../support/pace';

/**
 * The teller's cash-up and the supervisor's sign-off, driven through the screens at 390 px and
 * 1366 px, each screen scanned with axe (no serious or critical violation); and the cash desk of
 * a teller without a branch, which explains itself instead of offering the form.
 */
interface CashUpBody {
  id: string | null;
  currency: string;
  expected_minor: number;
  denominations: Array<{ code: string; kind: string; value_minor: number }>;
}

const signIn = (page: Page, username: string) => signInWithForm(page, username, STAFF_PASSWORD);

/** A session paid in cash at this teller's counter: slip issued, deposit recorded. */
async function deposit(teller: string): Promise<{ id: string; amount_minor: number }> {
  const slip = await cashSlip((await createSession()).id);
  const { deposit: d } = await staffCall<{ deposit: { id: string; amount_minor: number } }>(teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
  return d;
}

/** Notes and coins for an amount, largest first. */
function pieces(c: CashUpBody, minor: number): Record<string, number> {
  const out: Record<string, number> = {};
  let left = minor;
  for (const d of c.denominations) {
    const n = Math.floor(left / d.value_minor);
    if (n > 0) out[d.code] = n;
    left -= n * d.value_minor;
  }
  return out;
}

async function fillCount(page: Page, c: CashUpBody, counts: Record<string, number>): Promise<void> {
  for (const d of c.denominations) await page.locator(`#cu-count-${d.code}`).fill(counts[d.code] ? String(counts[d.code]) : '');
}

test.describe('cash-up', () => {
  test.describe.configure({ mode: 'serial' });
  // The mobile project counts the drawer at 390 px, the desktop project at the counter's 1366 px.
  test.beforeEach(atCounterWidth);
  let teller = '';
  let supervisor = '';
  let noBranch = '';
  // The supervisor (no branch) sees every teller's cash-up, listed by full name and username:
  // each project and repetition has its own teller, named apart, so that the role queries below
  // name one row.
  let tellerName = '';

  test.beforeAll(async ({ browserName: _browser }, info) => {
    test.setTimeout(budgetNow(240_000));
    const tag = runTag(info);
    tellerName = `Efua Teller (${info.project.name} ${info.repeatEachIndex + 1})`;
    teller = `cu.teller.${tag}`;
    supervisor = `cu.super.${tag}`;
    noBranch = `cu.nobranch.${tag}`;
    createDeskStaff({ teller, supervisor }, { tellerName, supervisorName: 'Kojo Supervisor' });
    createStaff(noBranch, 'teller', { branch: null });
    const approved = await deposit(teller);
    await deposit(teller);
    await staffCall(supervisor, 'POST', `/deposits/${approved.id}/approve`, {});
  });

  test('the teller enters the float, counts the drawer, sees short then balanced, and signs', async ({ page }, info) => {
    test.setTimeout(budgetNow(240_000));
    await signIn(page, teller);
    // The page is in the teller's navigation (folded behind Menu on a phone).
    await expect(page.locator('#shell-nav a[href="/backoffice/cash-up"]')).toBeAttached();
    await page.goto('/backoffice/cash-up');
    await expect(page.getByRole('heading', { level: 1, name: 'Cash-up' })).toBeVisible();
    await expect(page.getByTestId('cash-up-deposits')).toContainText('Approved');
    await expect(page.getByTestId('cash-up-deposits')).toContainText('Waiting for review');

    // Float: GHS 500.00 as an amount.
    await page.getByLabel('Float received (GHS)').fill('500');
    await page.getByRole('button', { name: 'Save float' }).click();
    await expect(page.getByTestId('cu-float')).toHaveText(/500\.00/);
    const day = await staffCall<{ cash_ups: CashUpBody[] }>(teller, 'GET', '/cash-desk/cash-up');
    const c = day.cash_ups.find((x) => x.currency === 'GHS')!;
    expect(c.expected_minor).toBeGreaterThan(50_000);

    // Short by one cedi first.
    await fillCount(page, c, pieces(c, c.expected_minor - 100));
    await page.getByRole('button', { name: 'Save count' }).click();
    await expect(page.getByTestId('cu-outcome')).toHaveText(/Short by GHS\s?1\.00/);
    await expect(page.getByTestId('cu-difference')).toHaveText(/^−GHS\s?1\.00$/);
    await expectNoSeriousViolations(page, 'teller cash-up, counted');
    await shotsAtBothWidths(page, info, 'cash-up-teller-short');

    // Recounted: balanced.
    await fillCount(page, c, pieces(c, c.expected_minor));
    await expect(page.getByTestId('cu-running')).toContainText(String(c.expected_minor / 100));
    await page.getByRole('button', { name: 'Save count' }).click();
    await expect(page.getByTestId('cu-outcome')).toHaveText(/^Balanced/);
    await expect(page.getByText('Count saved.')).toBeVisible();

    // Printed (A4 and roll share the print stylesheet): only the sheet, with signature lines.
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByText("Teller's signature")).toBeVisible();
    await expect(page.getByRole('button', { name: 'Save count' })).toBeHidden();
    await shot(page, info, 'cash-up-print');
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('button', { name: 'Sign my count' }).click();
    await page.getByRole('button', { name: 'Yes, sign my count' }).click();
    await expect(page.getByTestId('cash-up-locked')).toBeVisible();
    await expect(page.getByTestId('cu-teller-signed')).toContainText(`Signed by the teller, ${tellerName}`);
    await expect(page.getByRole('button', { name: 'Save count' })).toHaveCount(0);
    await expectNoSeriousViolations(page, 'teller cash-up, signed');
    await shotsAtBothWidths(page, info, 'cash-up-teller-signed');
  });

  test('a supervisor opens the signed count and signs it off with a note', async ({ page }, info) => {
    test.setTimeout(budgetNow(240_000));
    await signIn(page, supervisor);
    await page.goto('/backoffice/cash-up');
    await expect(page.getByRole('heading', { level: 1, name: 'Cash-ups' })).toBeVisible();
    // Named by full name and username: two tellers of one name stay apart.
    const open = page.getByRole('button', { name: `Open the GHS cash-up of ${tellerName} (${teller}) for` });
    await expect(open).toBeVisible();
    await expect(page.getByTestId('cash-up-queue')).toContainText(`${tellerName} (${teller})`);
    await expectNoSeriousViolations(page, 'supervisor cash-up queue');
    await open.click();
    await expect(page.getByTestId('cash-up-sheet')).toContainText('Balanced');
    await expect(page.locator('.cu-sheet__head')).toContainText(`${tellerName} (${teller})`);
    await page.getByLabel('Note (optional)').fill('Recounted with the teller.');
    await expectNoSeriousViolations(page, 'supervisor cash-up sign-off');
    await shotsAtBothWidths(page, info, 'cash-up-supervisor');
    await page.getByRole('button', { name: 'Sign off', exact: true }).click();
    await expect(page.getByTestId('cu-supervisor-signed')).toContainText('Signed off by the supervisor, Kojo Supervisor');
    await expect(page.getByTestId('cash-up-sheet')).toContainText('Recounted with the teller.');
    await shotsAtBothWidths(page, info, 'cash-up-supervisor-signed');
    // Gone from the waiting list, listed under signed off.
    await page.getByRole('tab', { name: 'Signed off' }).click();
    await expect(page.getByRole('button', { name: `Open the GHS cash-up of ${tellerName} (${teller}) for` })).toBeVisible();
  });

  test('a teller without a branch is told why the desk takes no deposits', async ({ page }, info) => {
    test.setTimeout(budgetNow(120_000));
    await signIn(page, noBranch);
    await page.goto('/backoffice/teller/scan');
    await expect(page.getByTestId('no-branch')).toContainText('Your account has no branch. Ask an administrator to assign you one.');
    await expect(page.getByLabel('Slip barcode or reference')).toHaveCount(0);
    await expectNoSeriousViolations(page, 'cash desk without a branch');
    await shotsAtBothWidths(page, info, 'cash-desk-no-branch');
  });

  test('the cash-up screens of teller and supervisor read from the catalogue (pseudo-locale)', async ({ browser }) => {
    test.setTimeout(budgetNow(240_000));
    // A fresh browser context for each person: no sign-in or language carried over.
    const screens = [
      [teller, '/backoffice/cash-up', (p: Page) => expect(p.getByTestId('cash-up-sheet')).toBeVisible()],
      [supervisor, '/backoffice/cash-up', (p: Page) => expect(p.getByRole('tab').first()).toBeVisible()],
    ] as const;
    for (const [user, path, ready] of screens) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await signIn(page, user);
      await page.goto(`${path}?lang=pseudo`);
      await ready(page);
      expect(await untranslatedText(page), `${user} at ${path}`).toEqual([]);
      await context.close();
    }
  });
});
