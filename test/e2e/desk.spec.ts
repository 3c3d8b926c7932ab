import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import {
  STAFF_PASSWORD,
  SUPERVISOR,
  TELLER,
  atCounterWidth,
  cashSlip,
  checkoutPath,
  createDeskStaff,
  createSession,
  payByCard,
  runTag,
  shot,
  shotsAtBothWidths as shots,
  signInWithForm,
  staffCall,
  type CreatedSession,
} from './support';

/**
 * The counter-ready teller desk, the review queue and the payer's pages, each screen photographed
 * at 390 px and 1366 px; the desk and the queue are used at both (the mobile project at 390 px,
 * the desktop project at 1366 px).
 */
const signIn = (page: Page, username: string) => signInWithForm(page, username, STAFF_PASSWORD);
const issueSlip = (session: CreatedSession) => cashSlip(session.id);

test.beforeEach(atCounterWidth);

test.describe('payer pages', () => {
  test('the slip comes back after a reload; a rejected deposit is explained with its reason', async ({ page }, info) => {
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await page.getByRole('button', { name: /Cash at a bank branch/ }).click();
    await page.getByRole('button', { name: 'Create deposit slip' }).click();
    const reference = (await page.getByTestId('slip-reference').textContent())!;
    // Printed, the slip says TEST.
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByTestId('slip-test-mark')).toBeVisible();
    await page.emulateMedia({ media: 'screen' });

    await page.reload();
    await expect(page.getByTestId('slip-reference')).toHaveText(reference);
    await shots(page, info, 'desk-p1-slip-after-reload');

    // At the branch: recorded by reference (typed), then rejected by a supervisor with a reason.
    const { deposit } = await staffCall<{ deposit: { id: string } }>(TELLER.username, 'POST', `/cash-slips/${encodeURIComponent(reference.toLowerCase())}/deposits`, {
      amount_minor: 22_450,
    });
    await expect(page.getByTestId('screen-pending')).toBeVisible({ timeout: 15_000 });
    await staffCall(SUPERVISOR.username, 'POST', `/deposits/${deposit.id}/reject`, { reason: 'Counterfeit or damaged notes: one torn 50' });
    const notice = page.getByTestId('deposit-rejected');
    await expect(notice).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId('deposit-rejected-reason')).toHaveText('Counterfeit or damaged notes: one torn 50');
    await expect(notice).toContainText(reference);
    await expect(notice).toContainText('go back to the branch with the receipt');
    // And the payer can pay again.
    await expect(page.getByRole('button', { name: /Cash at a bank branch/ })).toBeVisible();
    await shots(page, info, 'desk-p2-deposit-rejected');
  });

  test('the success page is a receipt: amount charged with the fee, date, reference, print', async ({ page }, info) => {
    const session = await createSession();
    const slip = await issueSlip(session);
    const { deposit } = await staffCall<{ deposit: { id: string } }>(TELLER.username, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor });
    await staffCall(SUPERVISOR.username, 'POST', `/deposits/${deposit.id}/approve`);
    await page.goto(checkoutPath(session));
    const receipt = page.getByTestId('payment-receipt');
    await expect(receipt).toBeVisible();
    await expect(page.getByTestId('receipt-amount')).toContainText('224.50'); // 222.50 invoice + 2.00 branch fee
    await expect(receipt).toContainText(/222\.50 invoice \+ GHS\s?2\.00 fee/);
    await expect(page.getByTestId('receipt-reference')).toHaveText(slip.reference);
    await expect(page.getByTestId('receipt-date')).not.toBeEmpty();
    await expect(page.getByTestId('receipt-test-mark')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Print or save as PDF' })).toBeVisible();
    await shots(page, info, 'desk-p3-receipt');
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print or save as PDF' })).toBeHidden();
    await expect(receipt).toBeVisible();
    await shot(page, info, 'desk-p4-receipt-print');
    await page.emulateMedia({ media: 'screen' });
  });

  test('a refused card number is explained beside the field, without developer text', async ({ page }) => {
    const session = await createSession();
    await page.goto(checkoutPath(session));
    await page.getByRole('button', { name: /Card/ }).first().click();
    await page.getByLabel('Card number').fill('4111 1111 1111 1111');
    await page.getByLabel(/Expiry/).fill('12 / 34');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect(page.getByText('In test mode only the test cards shown on this page work')).toBeVisible();
    await expect(page.getByText('docs/sandbox.md')).toHaveCount(0);
  });
});

test.describe.serial('teller desk and review queue', () => {
  // Each project and repetition has its own teller and supervisor: the queue is filtered to this teller.
  const DESK = { teller: '', supervisor: '', tellerName: '' };
  let s1: CreatedSession;
  let s2: CreatedSession;
  let paidOnline: CreatedSession;
  let slip1: { slip_token: string; reference: string; amount_minor: number };
  let slip2: { slip_token: string; reference: string; amount_minor: number };
  let slipPaid: { slip_token: string; reference: string; amount_minor: number };

  test.beforeAll(async ({ browserName: _browser }, info) => {
    const tag = runTag(info);
    Object.assign(DESK, { teller: `desk.teller.${tag}`, supervisor: `desk.super.${tag}`, tellerName: `Abena Teller (${tag})` });
    createDeskStaff(DESK, { tellerName: DESK.tellerName });
    s1 = await createSession();
    s2 = await createSession();
    paidOnline = await createSession();
    slip1 = await issueSlip(s1);
    slip2 = await issueSlip(s2);
    slipPaid = await issueSlip(paidOnline);
    // The payer paid by card after all: the slip is worthless now.
    await payByCard(paidOnline.id);
  });

  test('a teller types the printed reference, records in three keyboard actions, reprints and cashes up', async ({ page }, info) => {
    await signIn(page, DESK.teller);
    const scan = page.getByLabel('Slip barcode or reference');
    await expect(scan).toBeFocused();
    await expect(page.locator('#shell-nav a[href="/backoffice/teller/scan"]')).toHaveCount(1); // the supervisor's menu has none

    // A slip paid online: plainly "already paid — do not take cash", and no amount field.
    await page.keyboard.type(slipPaid.reference.replace(/-/g, ' ').toLowerCase());
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('slip-blocked')).toContainText('Already paid — do not take cash');
    await expect(page.getByTestId('slip-blocked')).toContainText('by card');
    await expect(page.getByLabel(/Counted cash/)).toHaveCount(0);
    await shots(page, info, 'desk-t1-already-paid');
    await page.keyboard.press('Escape');

    // Action 1: the reference typed in lower case without dashes, Enter.
    await expect(scan).toBeFocused();
    await expect(scan).toHaveValue('');
    await page.keyboard.type(slip1.reference.replace(/-/g, '').toLowerCase());
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('scanned-slip')).toContainText(slip1.reference);
    // Action 2: the counted amount, Enter. Action 3: Print (focused).
    await expect(page.getByLabel(/Counted cash/)).toBeFocused();
    await page.keyboard.type('224.50');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Print receipt' })).toBeFocused();
    const receipt = page.getByTestId('deposit-receipt');
    await expect(page.getByTestId('receipt-test-mark')).toBeVisible();
    await expect(page.getByTestId('receipt-signature')).toContainText('Branch stamp');
    await expect(receipt).not.toContainText('Branch—');
    // Numbered by branch, day and count (not the deposit's id), received by the teller's full name.
    await expect(receipt.getByText(/^[A-Z0-9-]+-\d{8}-\d{4}$/)).toBeVisible();
    await expect(receipt).not.toContainText('dep_');
    await expect(receipt).toContainText(DESK.tellerName);
    await shots(page, info, 'desk-t2-receipt');
    await page.keyboard.press('Escape');

    // A mistyped reference: a sentence, no developer text.
    await expect(scan).toBeFocused();
    await page.keyboard.type('PD-ZZZZ-ZZZZ');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert')).toContainText('No slip has this token or reference');
    await page.keyboard.press('Escape');

    // A second deposit, for the cash-up.
    await expect(scan).toBeFocused();
    await page.keyboard.type(slip2.slip_token);
    await page.keyboard.press('Enter');
    await expect(page.getByLabel(/Counted cash/)).toBeFocused();
    await page.keyboard.type('224.50');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Print receipt' })).toBeFocused();
    await page.keyboard.press('Escape');

    const recent = page.getByTestId('recent-deposits');
    await expect(recent.getByRole('columnheader', { name: /Time/ })).toBeVisible();
    await expect(recent.locator('time').first()).toHaveText(/\d{1,2}:\d{2}/);
    await expect(recent.getByRole('row').filter({ hasText: slip1.reference })).toContainText(/\d{1,2}:\d{2}/);
    await expect(page.getByTestId('shift-under_review')).toContainText('2');
    await expect(page.getByTestId('shift-total-row')).toContainText(/449\.00/);

    // Reprint the first receipt from the list.
    await recent.getByRole('button', { name: `Reprint the receipt of slip ${slip1.reference}` }).click();
    await expect(receipt).toContainText('(copy)');
    await expect(receipt).toContainText(slip1.reference);
    await shots(page, info, 'desk-t3-desk-reprint-cashup');
    await page.getByRole('button', { name: /^Close/ }).click();
  });

  test('a supervisor has no cash desk, filters the queue, confirms an approval and rejects with a listed reason', async ({ page }, info) => {
    await signIn(page, DESK.supervisor);
    await expect(page.locator('#shell-nav a[href="/backoffice/teller/scan"]')).toHaveCount(0);
    // The address typed in (in-app navigation: a reload signs out until the cookie sign-in lands).
    await page.evaluate(() => {
      window.history.pushState(null, '', '/backoffice/teller/scan');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await expect(page.getByText('Your role does not give access to this page.')).toBeVisible();
    await expect(page.getByText('(allowed: teller)')).toHaveCount(0);

    // On a phone the menu is folded behind its button.
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) await menu.click();
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /^Deposit review/ }).click();
    await page.getByLabel('Teller').selectOption({ label: DESK.teller });
    const queue = page.getByTestId('review-queue-table');
    await expect(queue.getByRole('row')).toHaveCount(3); // header + this teller's two deposits
    await shots(page, info, 'desk-s1-review-filtered');

    // Approve slip 1: the dialog names amount and session; Enter confirms.
    await queue.getByRole('row').filter({ hasText: slip1.reference }).getByRole('button', { name: /^Approve/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this deposit?' });
    await expect(page.getByTestId('approve-amount')).toContainText('224.50');
    await expect(dialog).toContainText(s1.id);
    await shots(page, info, 'desk-s2-approve-confirm');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'The payment is complete' })).toBeVisible();

    // Reject slip 2 with a reason from the list plus free text, from its detail view.
    await queue.getByRole('link', { name: slip2.reference }).click();
    await expect(page).toHaveURL(/\/backoffice\/review\/dep_/);
    const detail = page.getByTestId('deposit-detail');
    await expect(detail).toContainText(s2.id);
    await expect(detail).toContainText(DESK.teller);
    await detail.getByRole('button', { name: 'Reject' }).click();
    await detail.getByRole('button', { name: 'Reject deposit' }).click();
    await expect(detail.getByRole('alert')).toHaveText('Choose a reason.');
    await detail.getByLabel('Reason').selectOption('Cash short of the slip amount');
    await detail.getByLabel(/Details/).fill('GHS 20 short on recount');
    await shots(page, info, 'desk-s3-detail-reject');
    await detail.getByRole('button', { name: 'Reject deposit' }).click();
    await expect(detail).toContainText('Cash short of the slip amount: GHS 20 short on recount');
    await expect(detail.getByText('Rejected', { exact: true })).toBeVisible();
    await page.goBack();
    await expect(page).toHaveURL(/\/backoffice\/review$/);
  });

  test("the teller's list shows the supervisor's reason and the cash-up counts by state", async ({ page }, info) => {
    await signIn(page, DESK.teller);
    const recent = page.getByTestId('recent-deposits');
    await expect(recent.getByRole('row').filter({ hasText: slip2.reference }).getByTestId('rejection-reason')).toHaveText(
      'Cash short of the slip amount: GHS 20 short on recount',
    );
    await expect(page.getByTestId('shift-approved')).toContainText('1');
    await expect(page.getByTestId('shift-rejected')).toContainText('1');
    await expect(page.getByTestId('shift-drawer-row')).toContainText(/224\.50/);
    await shots(page, info, 'desk-t4-rejected-reason');
    // "Print cash-up" prints the cash-up alone: it is the printable part when the print dialog opens.
    await page.evaluate(() => {
      window.print = () => {
        (window as unknown as { printed: string }).printed = document.querySelector('.cd-printable')?.textContent ?? '';
      };
    });
    await page.getByRole('button', { name: 'Print cash-up' }).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { printed?: string }).printed ?? '')).toContain(`Cash-up · ${DESK.teller}`);
  });
});
