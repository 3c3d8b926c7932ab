import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Response } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, shot, type CreatedSession, apiFetch, TELLER } from './support';
import { chromiumLaunch } from '../../playwright.config';
import { qrVideo } from './qr-video';
import { budgetNow } from '../support/pace';

/**
 * The back office against the real server: a teller records a cash deposit by scanning the
 * slip token as a keyboard-wedge scanner types it, a supervisor approves it, and finance sees
 * the session succeed. Role limits are checked in the screens and over HTTP.
 */
const PASSWORD = 'e2e-back-office-pass';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const USERS = {
  teller: `bo.teller.${run}`,
  supervisor: `bo.super.${run}`,
  financeA: `bo.fin.a.${run}`,
  financeB: `bo.fin.b.${run}`,
  admin: `bo.admin.${run}`,
};
const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;


async function merchantPost<T>(apiKey: string, path: string, body: unknown): Promise<T> {
  const res = await apiFetch(`${API}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok && res.status !== 207) throw new Error(`${path} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** The merchant's webhook receiver, on this machine: answers 200 and keeps what it got. */
function startReceiver(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/paydesk/webhooks`, bodies })));
}


async function issueSlip(apiKey: string, invoiceRef: string) {
  const s = await merchantPost<CreatedSession>(apiKey, '/sessions', { amount_minor: 5_000, invoice_ref: invoiceRef, currency: 'GHS', customer: { name: 'Yaw Mensah' } });
  const quote = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${s.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
  const res = await apiFetch(`${API}/api/v1/checkout/cash-slips`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: s.id, amount_minor: quote.surcharges.cash.total_minor }),
  });
  return (await res.json()) as { slip_token: string; reference: string; amount_minor: number };
}

async function token(username: string): Promise<string> {
  const res = await apiFetch(`${API}/api/backoffice/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
}

async function signIn(page: Page, username: string): Promise<void> {
  await page.goto('/backoffice/');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Back office' })).toBeVisible();
}

/**
 * A browser whose camera films `text`'s QR code (Chromium's fake camera plays the video; the
 * permission prompt is answered yes), with the flags every other browser of these tests runs
 * with (playwright.config.ts).
 */
async function cameraBrowser(dir: string, text: string): Promise<Browser> {
  mkdirSync(dir, { recursive: true });
  const video = join(dir, 'slip-qr.y4m');
  qrVideo(text, video);
  return chromium.launch({
    ...chromiumLaunch,
    args: [...chromiumLaunch.args, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
  });
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
}

test.describe.serial('back office: cash desk to finance', () => {
  test.skip(({ isMobile }) => isMobile, 'the back office is a desktop application');

  let session: CreatedSession;
  let sessionB: CreatedSession & { merchant_id: string };
  let slip: { slip_token: string; reference: string; amount_minor: number };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let cameraSlip: { slip_token: string; reference: string; amount_minor: number };

  test.beforeAll(async () => {
    receiver = await startReceiver();
    // A second integration of the global-setup merchant (same name: reused), with a webhook endpoint.
    const a = adminCli(['integration:create', '--merchant', 'Accra Water Co.', '--webhook-url', receiver.url]);
    const b = adminCli(['integration:create', '--merchant', `Kumasi Power ${run}`]);
    adminCli(['staff:create', '--username', USERS.teller, '--password', PASSWORD, '--role', 'teller', '--branch', TELLER.branchCode]);
    adminCli(['staff:create', '--username', USERS.supervisor, '--password', PASSWORD, '--role', 'supervisor']);
    adminCli(['staff:create', '--username', USERS.financeA, '--password', PASSWORD, '--role', 'finance', '--merchant', a.merchant_id!]);
    adminCli(['staff:create', '--username', USERS.financeB, '--password', PASSWORD, '--role', 'finance', '--merchant', b.merchant_id!]);
    adminCli(['staff:create', '--username', USERS.admin, '--password', PASSWORD, '--role', 'admin']);
    const invoiceRef = `INV-BO-${run}`;
    const lines = [
      { code: 'WTR-USAGE', name: 'Water usage, March (18 m³)', amount_minor: 18_450 },
      { code: 'WTR-METER', name: 'Meter service charge', amount_minor: 1_500 },
      { code: 'SEW-LEVY', name: 'Sewerage levy', amount_minor: 2_300 },
    ];
    await merchantPost(a.api_key!, '/revenue-lines', { lines: lines.map(({ code, name }) => ({ code, name })), deactivate_missing: false });
    await merchantPost(a.api_key!, '/invoice-lines', { invoice_ref: invoiceRef, currency: 'GHS', lines });
    session = await merchantPost<CreatedSession>(a.api_key!, '/sessions', {
      amount_minor: 22_250,
      invoice_ref: invoiceRef,
      currency: 'GHS',
      description: 'Water bill, March 2026',
      customer: { name: 'Ama Mensah', email: 'ama.mensah@example.com' },
    });
    const quote = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${session.id}/quote`)).json()) as { surcharges: { cash: { total_minor: number } } };
    const res = await apiFetch(`${API}/api/v1/checkout/cash-slips`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: session.id, amount_minor: quote.surcharges.cash.total_minor }),
    });
    slip = (await res.json()) as typeof slip;
    cameraSlip = await issueSlip(a.api_key!, `INV-CAM-${run}`);
    const created = await merchantPost<CreatedSession>(b.api_key!, '/sessions', { amount_minor: 4_200, invoice_ref: `KP-${run}`, customer: { name: 'Kwame Boateng' } });
    sessionB = { ...created, merchant_id: b.merchant_id! };
  });
  test.afterAll(async () => {
    await new Promise((r) => receiver.server.close(r));
  });

  test('a teller scans the slip with a wedge scanner and records the deposit', async ({ page }, info) => {
    await page.goto('/backoffice/');
    await shot(page, info, 'bo-00-sign-in');
    await signIn(page, USERS.teller);
    // Tellers have no review screen.
    await expect(page.getByRole('link', { name: 'Deposit review', exact: true })).toHaveCount(0);
    // Tellers land on the cash desk, with the scan field focused.
    await expect(page).toHaveURL(/\/backoffice\/teller\/scan$/);
    const scan = page.getByLabel('Slip barcode or reference');
    await expect(scan).toBeFocused();
    await shot(page, info, 'bo-01-cash-desk-empty');

    // A keyboard-wedge scanner: the token's characters, fast, then Enter (action 1).
    await page.keyboard.type(slip.slip_token, { delay: 5 });
    await page.keyboard.press('Enter');
    const scanned = page.getByTestId('scanned-slip');
    await expect(scanned).toContainText('Accra Water Co.');
    await expect(scanned).toContainText(session.invoice_ref);
    await expect(scanned).toContainText('Ama Mensah');
    await expect(page.getByTestId('slip-amount')).toHaveText(/GHS\s?224\.50/);
    const counted = page.getByLabel(/Counted cash/);
    await expect(counted).toBeFocused();

    // A wrong count is refused and nothing is recorded.
    await page.keyboard.type('224.00');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').filter({ hasText: 'differs from the slip' })).toBeVisible();
    await shot(page, info, 'bo-02-cash-desk-mismatch');

    // The right count, Enter (action 2): recorded, receipt shown with Print focused (action 3).
    await counted.fill('');
    await page.keyboard.type('224.50');
    await shot(page, info, 'bo-03-cash-desk-slip');
    await page.keyboard.press('Enter');
    const receipt = page.getByTestId('deposit-receipt');
    await expect(receipt).toContainText('Deposit recorded');
    await expect(receipt).toContainText(slip.reference);
    await expect(receipt).toContainText(/GHS\s?224\.50/);
    await expect(page.getByRole('button', { name: 'Print receipt' })).toBeFocused();
    await shot(page, info, 'bo-04-cash-desk-receipt');
    // The printed receipt carries only the receipt.
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print receipt' })).toBeHidden();
    await expect(page.locator('#receipt')).toBeVisible();
    await shot(page, info, 'bo-05-receipt-print');
    await page.emulateMedia({ media: 'screen' });

    // Escape returns to an empty, focused scan field for the next payer.
    await page.keyboard.press('Escape');
    await expect(page.getByLabel('Slip barcode or reference')).toBeFocused();
    await expect(page.getByLabel('Slip barcode or reference')).toHaveValue('');
  });

  test('a teller scans a slip with the camera', async ({ baseURL }, info) => {
    test.setTimeout(budgetNow(120_000)); // its own browser, and up to three camera openings of 25 s each (below)
    const browser = await cameraBrowser(info.outputDir, cameraSlip.slip_token);
    try {
      const page = await browser.newPage({ baseURL: baseURL!, viewport: { width: 1280, height: 860 } });
      await signIn(page, USERS.teller);
      const scanned = page.getByTestId('scanned-slip');
      // The first frame is read in 2-4 s. In CI a camera stream now and then
      // read nothing in 40 s or more. The likely cause: the video played the QR code, but
      // ZXing's detector misjudges ~1 slip token's code in 20 at this size, and a still camera
      // shows the same frame over and over. The scanner also tries smaller copies of the
      // frame; the next test pins one such code. Kept as a teller would do it: a camera that
      // shows nothing is closed and reopened, three times at most. Each time the test gives up, it
      // says on stderr what the video element held, and what a canvas copy of its frame holds.
      for (let opening = 1; ; opening++) {
        await page.getByRole('button', { name: 'Scan with the camera' }).click();
        // The scanner opens; a first frame read at once closes it before this looks (seen in CI).
        await expect(page.getByTestId('camera-scanner').or(scanned.filter({ hasText: cameraSlip.reference })).first()).toBeVisible();
        try {
          await expect(scanned).toContainText(cameraSlip.reference, { timeout: 25_000 });
          break;
        } catch (err) {
          const state = await page
            .locator('video')
            .evaluate(
              (v: HTMLVideoElement) => {
                // The frame as the scanner sees it: a canvas copy, summarised (dark pixels and range of the red channel).
                const c = document.createElement('canvas');
                [c.width, c.height] = [v.videoWidth, v.videoHeight];
                const g = c.getContext('2d', { willReadFrequently: true });
                let copy: object = { unreadable: 'no 2d context' };
                if (g && c.width > 0) {
                  g.drawImage(v, 0, 0, c.width, c.height);
                  const px = g.getImageData(0, 0, c.width, c.height).data;
                  let [min, max, dark] = [255, 0, 0];
                  for (let i = 0; i < px.length; i += 4) {
                    min = Math.min(min, px[i]!);
                    max = Math.max(max, px[i]!);
                    if (px[i]! < 64) dark++;
                  }
                  copy = { min, max, darkShare: Math.round((dark / (px.length / 4)) * 1000) / 1000 };
                }
                return { readyState: v.readyState, width: v.videoWidth, height: v.videoHeight, time: v.currentTime, paused: v.paused, canvasCopy: copy };
              },
              undefined,
              { timeout: 2_000 },
            )
            .catch((e: unknown) => ({ unreadable: String(e) }));
          const status = await page.getByTestId('camera-scanner').getByRole('status').textContent({ timeout: 2_000 }).catch(() => null);
          process.stderr.write(`camera scan, opening ${opening}: nothing read in 25 s; status ${JSON.stringify(status)}; video ${JSON.stringify(state)}\n`);
          await page.screenshot({ timeout: 5_000 }).then((png) => info.attach(`camera-screenshot-${opening}`, { body: png, contentType: 'image/png' })).catch(() => undefined);
          if (opening === 3) throw err;
          // Read just after the wait gave up: the scanner has closed itself.
          if ((await page.getByTestId('camera-scanner').count()) === 0 && (await scanned.textContent().catch(() => ''))?.includes(cameraSlip.reference)) break;
          await page.getByRole('button', { name: 'Close camera' }).click();
          await expect(page.getByTestId('camera-scanner')).toHaveCount(0);
        }
      }
      await expect(page.getByTestId('camera-scanner')).toHaveCount(0);
      await expect(page.getByLabel('Slip barcode or reference')).toHaveValue(cameraSlip.slip_token);
      await expect(page.getByLabel(/Counted cash/)).toBeFocused();
      await shot(page, info, 'bo-05b-camera-scanned');
    } finally {
      await browser.close();
    }
  });

  test('the camera reads a QR code that ZXing misjudges at full size (a slip held close to the camera)', async ({ baseURL }, info) => {
    // ZXing's detector fails on ~5 % of slip tokens' QR codes when a module is 8 camera pixels
    // (test/e2e/qr-video.ts), whatever the frame's position: this token is one of them, and a
    // camera that holds still shows the same frame over and over. The scanner also tries a
    // half-, third- and quarter-size copy of each frame it cannot read (camera-scanner.tsx). Not a
    // slip of this instance: what is checked is that the camera read it into the scan field.
    const hard = 'slp_PoaAXzW1wauBoOd9G62wCtg3YqO7oAAx';
    const browser = await cameraBrowser(info.outputDir, hard);
    try {
      const page = await browser.newPage({ baseURL: baseURL!, viewport: { width: 1280, height: 860 } });
      await signIn(page, USERS.teller);
      await page.getByRole('button', { name: 'Scan with the camera' }).click();
      // The token in the scan field, then the scanner closed. Not waited for visible first: a frame
      // read at once closes the scanner before a check could see it.
      await expect(page.getByLabel('Slip barcode or reference')).toHaveValue(hard, { timeout: 20_000 });
      await expect(page.getByTestId('camera-scanner')).toHaveCount(0);
    } finally {
      await browser.close();
    }
  });

  test('a teller cannot approve a deposit', async () => {
    const t = await token(USERS.teller);
    const list = (await (await apiFetch(`${API}/api/backoffice/v1/deposits?status=under_review`, { headers: { authorization: `Bearer ${t}` } })).json()) as {
      deposits: Array<{ id: string; slip_reference: string }>;
    };
    const mine = list.deposits.find((d) => d.slip_reference === slip.reference);
    expect(mine).toBeTruthy();
    const res = await apiFetch(`${API}/api/backoffice/v1/deposits/${mine!.id}/approve`, { method: 'POST', headers: { authorization: `Bearer ${t}` } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  });

  test('a supervisor approves it from the review queue', async ({ page }, info) => {
    await signIn(page, USERS.supervisor);
    // The About line names the server's build, as /healthz does.
    await expect(page.locator('.shell__footer')).toContainText(/server \d+\.\d+\.\d+ \(([0-9a-f]{7,40}|unknown)\)/);
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: /^Deposit review/ }).click();
    const queue = page.getByTestId('review-queue');
    const row = queue.getByRole('row').filter({ hasText: slip.reference });
    await expect(row).toContainText(USERS.teller);
    await expect(row).toContainText(/GHS\s?224\.50/);
    await shot(page, info, 'bo-06-review-queue');
    await row.getByRole('button', { name: /^Approve/ }).click();
    // The confirmation names the amount and the session; Enter confirms.
    const dialog = page.getByRole('dialog', { name: 'Approve this deposit?' });
    await expect(dialog).toContainText(/GHS\s?224\.50/);
    await expect(dialog).toContainText(session.id);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'The payment is complete' })).toBeVisible();
    await expect(queue.getByRole('row').filter({ hasText: slip.reference })).toHaveCount(0);
    await shot(page, info, 'bo-07-review-approved');
    await page.getByRole('link', { name: 'Audit trail', exact: true }).click();
    await expect(page.getByTestId('audit-list')).toContainText('Approved a cash deposit');
    await shot(page, info, 'bo-08-audit');
    await signOut(page);
  });

  test('finance of merchant A sees the session succeed; merchant B stays invisible', async ({ page }, info) => {
    await signIn(page, USERS.financeA);
    await page.getByRole('link', { name: 'Finance', exact: true }).click();
    const list = page.getByTestId('sessions-list');
    await expect(list.getByRole('row').nth(1)).toBeVisible();
    await shot(page, info, 'bo-09a-finance-sessions-all');
    // Other tests pay sessions of the same merchant meanwhile: narrow to this invoice.
    await page.getByLabel('Search').fill(session.invoice_ref);
    const row = list.getByRole('row').filter({ hasText: session.invoice_ref });
    await expect(list.getByRole('row')).toHaveCount(2);
    await expect(row).toContainText('Paid');
    await expect(row).toContainText('Cash');
    await expect(list).not.toContainText(sessionB.invoice_ref);
    await shot(page, info, 'bo-09-finance-sessions');

    await page.getByLabel('Status').selectOption('success');
    await expect(list.getByRole('row').filter({ hasText: session.invoice_ref })).toBeVisible();
    await page.getByLabel('Status').selectOption('expired');
    await expect(list.getByRole('row').filter({ hasText: session.invoice_ref })).toHaveCount(0);
    await page.getByLabel('Status').selectOption('');

    await list.getByRole('row').filter({ hasText: session.invoice_ref }).click();
    const timeline = page.getByTestId('session-timeline');
    await expect(timeline).toContainText('Cash deposit approved');
    await expect(timeline).toContainText('Status changed from In progress to Paid');
    await expect(timeline).toContainText('Merchant notified: payment completed');
    await expect(timeline).not.toContainText('checkout.session.completed');
    await shot(page, info, 'bo-10-finance-session-detail');

    await page.getByRole('tab', { name: 'Invoices' }).click();
    await page.getByLabel('Invoice ref').fill(session.invoice_ref);
    const inv = page.getByTestId('invoices-list').getByRole('row').filter({ hasText: session.invoice_ref });
    await expect(inv).toContainText('Paid in full');
    await shot(page, info, 'bo-11-finance-invoices');
    await page.getByRole('tab', { name: 'Revenue lines' }).click();
    await expect(page.getByTestId('revenue-lines')).toContainText('WTR-USAGE');
    await shot(page, info, 'bo-12-finance-revenue-lines');
    await page.getByRole('tab', { name: 'Reconciliation export' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv).toContain(session.id);
    expect(csv).toContain(slip.reference);
    await shot(page, info, 'bo-13-finance-export');

    // The completed event reached the merchant's endpoint and shows in the delivery log.
    await expect.poll(() => receiver.bodies.some((b) => b.includes(session.id)), { timeout: 15_000 }).toBe(true);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const log = page.getByTestId('delivery-log');
    await page.getByLabel('Session').fill(session.id);
    const delivery = log.getByRole('row').filter({ hasText: 'completed' });
    await expect(delivery).toContainText('200');
    await expect(page.getByTestId('endpoint-health')).toContainText(receiver.url);
    await shot(page, info, 'bo-14-webhooks-log');
    await delivery.click();
    const detail = page.getByTestId('delivery-detail');
    await expect(detail).toContainText(session.id);
    // Each attempt shows the exact request headers sent and the receiver's answer headers.
    await expect(detail.getByLabel('Request headers').first()).toContainText(`x-service-event-id: evt_`);
    await expect(detail.getByLabel('Request headers').first()).toContainText(/x-service-signature: t=\d+,v1=[0-9a-f]{64}/);
    await expect(detail.getByLabel('Response headers').first()).toContainText('content-type: application/json');
    await shot(page, info, 'bo-15-webhooks-delivery');
    // The log sorts on the server by a header click.
    await page.getByLabel('Session').fill('');
    const latency = page.getByTestId('delivery-log-table').getByRole('columnheader', { name: /Latency/ });
    await latency.getByRole('button').click();
    await expect(latency).toHaveAttribute('aria-sort', 'descending');
    await latency.getByRole('button').press('Enter');
    await expect(latency).toHaveAttribute('aria-sort', 'ascending');

    // Over HTTP too: merchant B's session is simply not there for finance A.
    const t = await token(USERS.financeA);
    const res = await apiFetch(`${API}/api/backoffice/v1/sessions/${sessionB.id}`, { headers: { authorization: `Bearer ${t}` } });
    expect(res.status).toBe(404);
    const other = await apiFetch(`${API}/api/backoffice/v1/sessions?merchant_id=${sessionB.merchant_id}`, { headers: { authorization: `Bearer ${t}` } });
    expect(other.status).toBe(404);
    await signOut(page);

    await signIn(page, USERS.financeB);
    await page.getByRole('link', { name: 'Finance', exact: true }).click();
    await expect(page.getByTestId('sessions-list')).toContainText(sessionB.invoice_ref);
    await expect(page.getByTestId('sessions-list')).not.toContainText(session.invoice_ref);
  });

  test('an admin picks the merchant in finance, administers integrations and staff', async ({ page }, info) => {
    await signIn(page, USERS.admin);
    await expect(page.getByRole('link', { name: /Administration →/ })).toBeVisible();
    await shot(page, info, 'bo-16a-admin-overview');
    await page.getByRole('link', { name: 'Finance', exact: true }).click();
    await page.getByLabel('Merchant').selectOption({ label: 'Accra Water Co.' });
    await page.getByLabel('Search').fill(session.invoice_ref);
    await expect(page.getByTestId('sessions-list')).toContainText(session.invoice_ref);
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await expect(page.getByTestId('integration-card').first()).toBeVisible();
    await shot(page, info, 'bo-16-admin-integrations');
    await page.getByRole('button', { name: `Manage Kumasi Power ${run} integration` }).click();
    const card = page.getByTestId('integration-card').filter({ hasText: `Kumasi Power ${run}` });
    await card.getByRole('button', { name: 'Create API key' }).click();
    await expect(card.getByTestId('secret-once')).toContainText('ak_test_');
    await shot(page, info, 'bo-17-admin-key-once', { fullPage: false });
    await card.getByRole('button', { name: 'Done' }).click();
    await expect(card.getByTestId('secret-once')).toHaveCount(0);
    await page.getByRole('tab', { name: 'Staff' }).click();
    await expect(page.getByTestId('staff-list')).toContainText(USERS.teller);
    // Client-side sort: the username header flips the order, and says so to assistive tech.
    const staffTable = page.getByTestId('staff-table');
    const userHeader = staffTable.getByRole('columnheader', { name: /Username/ });
    await expect(userHeader).toHaveAttribute('aria-sort', 'ascending');
    const usernameColumn = (await staffTable.locator('thead th').allInnerTexts()).findIndex((h) => /username/i.test(h)) + 1;
    expect(usernameColumn).toBeGreaterThan(0);
    const names = async () => (await staffTable.locator(`tbody tr td:nth-child(${usernameColumn})`).allInnerTexts()).map((n) => n.trim());
    const ascNames = await names();
    expect(ascNames).toEqual([...ascNames].sort((x, y) => x.localeCompare(y, undefined, { numeric: true, sensitivity: 'base' })));
    await userHeader.getByRole('button').click();
    await expect(userHeader).toHaveAttribute('aria-sort', 'descending');
    expect((await names())[0]).not.toBe(ascNames[0]);
    await shot(page, info, 'bo-18-admin-staff');
    await page.getByRole('tab', { name: 'Banks & branches' }).click();
    await expect(page.getByTestId('banks-list')).toContainText('GCB Bank');
    await expect(page.getByTestId('banks-table').getByRole('button', { name: 'Rename GCB Bank' })).toBeVisible();
    await shot(page, info, 'bo-19-admin-banks');
    await page.getByRole('tab', { name: 'Sandbox' }).click();
    await shot(page, info, 'bo-20-admin-sandbox');
  });

  // Its own test (it was the tail of the one above, whose 26 failed sign-ins, one after another,
  // took the two past the 60 s budget on a loaded 2-core CI machine).
  test('an admin reads the audit trail, sorted on the server and paged by cursor in time order', async ({ page }, info) => {
    // 26 sign-ins at scrypt's full cost: 9-16 s here, and CI's loaded machine has run 4x slower.
    test.setTimeout(budgetNow(120_000));
    await signIn(page, USERS.admin);
    // Failed sign-ins under unknown names are audited (and throttled per name only): enough
    // entries for two pages. Made before the screen opens: its lists are cached for 10 s, so a
    // re-sort back to time order soon after would show the entries from before them.
    // Sent together: each runs scrypt at full cost (~0.5 s here, several on a loaded CI machine),
    // on the server's thread pool. Each must be a 401 (audited), not a 429 (throttled, not audited).
    const guesses = await Promise.all(
      Array.from({ length: 26 }, (_, i) =>
        apiFetch(`${API}/api/backoffice/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: `nobody-${run}-${i}`, password: 'wrong' }) }),
      ),
    );
    expect(guesses.map((r) => r.status)).toEqual(Array(26).fill(401));
    await page.getByRole('link', { name: 'Audit trail', exact: true }).click();
    await expect(page.getByTestId('audit-list')).toContainText('Sign-in failed');
    await shot(page, info, 'bo-21-admin-audit');
    // Server-side sort and pages: by action, then the second page.
    const audit = page.getByTestId('audit-list');
    const actionHeader = audit.getByRole('columnheader', { name: /Action/ });
    await actionHeader.getByRole('button').click();
    await expect(actionHeader).toHaveAttribute('aria-sort', 'descending');
    // Each page's first action read from the server's answer, then seen on the screen: the screen
    // keeps the previous order's rows while the new page loads (placeholder data), and reading it
    // too early took the descending page's first row for the ascending one.
    const byAction = (offset: number) =>
      page.waitForResponse((r) => {
        const u = new URL(r.url());
        return u.pathname.endsWith('/api/backoffice/v1/audit') && u.searchParams.get('sort') === 'action' && u.searchParams.get('dir') === 'asc' && Number(u.searchParams.get('offset') ?? 0) === offset;
      });
    const firstOf = async (answer: Promise<Response>) => ((await (await answer).json()) as { entries: Array<{ action: string }> }).entries[0]!.action;
    const firstRowAction = audit.locator('tbody tr').first().locator('td').nth(2).locator('[data-action]'); // sorted by code, shown in words
    const ascending = byAction(0);
    await actionHeader.getByRole('button').click();
    await expect(actionHeader).toHaveAttribute('aria-sort', 'ascending');
    const firstAction = await firstOf(ascending);
    await expect(firstRowAction).toHaveAttribute('data-action', firstAction);
    await expect(audit.locator('.bo-pagination__count')).toHaveText(/^1–25 of \d+$/);
    const pageTwo = byAction(25);
    await audit.getByRole('button', { name: 'Next' }).click();
    const secondPageAction = await firstOf(pageTwo);
    await expect(audit.locator('.bo-pagination__count')).toHaveText(/^26–\d+ of \d+$/);
    await expect(firstRowAction).toHaveAttribute('data-action', secondPageAction);
    expect(secondPageAction >= firstAction, `${secondPageAction} after ${firstAction}`).toBe(true);
    await shot(page, info, 'bo-22-admin-audit-sorted');
    // In time order the pages go by cursor: Next asks for the entries after the first
    // page's last one, not for an offset, so entries audited meanwhile shift nothing, and the
    // list goes on past the API's deepest offset. Previous comes back to the first page.
    // The first page is compared with the data its cursor comes from: back in time order the list
    // may first show its cached page (10 s staleTime) while it fetches the newer one, and in CI
    // the other worker's sign-ins are audited meanwhile (else the cursor could come from the fresh
    // page, the comparison from the cached one). So no audit request may still be in flight.
    let auditFetches = 0;
    const isAudit = (r: { url(): string }) => r.url().includes('/api/backoffice/v1/audit?');
    page.on('request', (r) => void (isAudit(r) && auditFetches++));
    const settled = (r: { url(): string }) => void (isAudit(r) && auditFetches--);
    page.on('requestfinished', settled);
    page.on('requestfailed', settled);
    // Page 1 in time order, as every answer the list got for it (a refetch every 15 s brings the
    // other worker's sign-ins): Next's cursor comes from the latest, so page 2 starts at or before
    // the oldest entry of the newest of them. Both pages are read from the answers, not the screen,
    // which keeps showing the previous page while the next one loads (placeholder data).
    const firstPageEnds: string[] = [];
    const reads: Array<Promise<void>> = [];
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (!isAudit(r) || u.searchParams.has('cursor') || u.searchParams.get('sort') !== 'at') return;
      reads.push(
        r
          .json()
          .then((body: { entries?: Array<{ at: string }> }) => void (body.entries?.length && firstPageEnds.push(body.entries.at(-1)!.at)))
          .catch(() => undefined),
      );
    });
    const whenHeader = audit.getByRole('columnheader', { name: /When/ });
    await whenHeader.getByRole('button').click();
    await expect(whenHeader).toHaveAttribute('aria-sort', 'descending');
    await expect(audit.locator('.bo-pagination__count')).toHaveText(/^1–25 of \d+$/);
    await expect.poll(() => auditFetches, { timeout: 30_000 }).toBe(0);
    const screenLast = await audit.locator('tbody tr').last().locator('time').getAttribute('datetime');
    const byCursor = page.waitForResponse((r) => isAudit(r) && new URL(r.url()).searchParams.has('cursor'));
    await audit.getByRole('button', { name: 'Next' }).click();
    const second = await byCursor;
    expect(new URL(second.url()).searchParams.has('offset')).toBe(false);
    const firstOnSecond = ((await second.json()) as { entries: Array<{ at: string }> }).entries[0]!.at;
    await expect(audit.locator('.bo-pagination__count')).toHaveText(/^26–\d+ of \d+$/);
    await expect(audit.locator('tbody tr').first().locator('time')).toHaveAttribute('datetime', firstOnSecond);
    await Promise.all(reads);
    const lastOnFirst = [screenLast ?? '', ...firstPageEnds].sort().at(-1)!;
    expect(firstOnSecond <= lastOnFirst, `${firstOnSecond} after ${lastOnFirst}`).toBe(true);
    await audit.getByRole('button', { name: 'Previous' }).click();
    await expect(audit.locator('.bo-pagination__count')).toHaveText(/^1–25 of \d+$/);
  });
});
