import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures';
import { shot, adminCli, apiFetch } from './support';

/**
 * A receiver that answers 410 disables its endpoint; the events that follow are
 * held, the webhooks screen says how many, and an admin's "Enable endpoint" sends them in
 * event order.
 */
const API = `http://127.0.0.1:${process.env.PAYDESK_E2E_PORT ?? '47913'}`;
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;
const ADMIN = { username: `held.admin.${run}`, password: 'e2e-held-deliveries-pass' };


/**
 * The merchant's receiver: answers `status()` and keeps the ids of this merchant's events in
 * arrival order. Its port is one the system handed out, which an endpoint of another spec, whose
 * receiver has closed, may still name: a delivery of anything but this run's invoices gets a 200
 * and is not counted.
 */
function startReceiver(status: () => number): Promise<{ server: Server; url: string; ids: string[] }> {
  const ids: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!new RegExp(`"HELD-\\d-${run}"`).test(Buffer.concat(chunks).toString('utf8'))) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
      ids.push(String(req.headers['x-service-event-id']));
      res.writeHead(status(), { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, ids })));
}

async function paidEvent(apiKey: string, invoiceRef: string): Promise<string> {
  const created = await apiFetch(`${API}/api/v1/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount_minor: 1_500, invoice_ref: invoiceRef }),
  });
  const session = (await created.json()) as { id: string };
  const quote = (await (await apiFetch(`${API}/api/v1/checkout/sessions/${session.id}/quote`)).json()) as { surcharges: { card: { total_minor: number } } };
  const paid = await apiFetch(`${API}/api/v1/checkout/sessions/${session.id}/card-payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_minor: quote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' }),
  });
  expect(paid.status).toBe(201);
  return session.id;
}

test('a 410 holds the events that follow; the webhooks screen counts them and Enable endpoint sends them in order', async ({ page, isMobile }, info) => {
  test.skip(isMobile, 'the back office is a desktop application');
  let status = 410;
  const receiver = await startReceiver(() => status);
  try {
    adminCli(['staff:create', '--username', ADMIN.username, '--password', ADMIN.password, '--role', 'admin']);
    const created = adminCli(['integration:create', '--merchant', `Held Hooks ${run}`, '--webhook-url', receiver.url]);
    await paidEvent(created.api_key!, `HELD-1-${run}`);
    await expect.poll(() => receiver.ids.length, { timeout: 15_000 }).toBe(1); // answered 410
    await paidEvent(created.api_key!, `HELD-2-${run}`);
    await paidEvent(created.api_key!, `HELD-3-${run}`);

    await page.goto('/backoffice/');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    // Matched by merchant too: an endpoint of another spec may name the same (reused) port.
    const card = page.getByTestId('endpoint-health').locator('.wh-health__card').filter({ hasText: receiver.url }).filter({ hasText: `Held Hooks ${run}` });
    await expect(card).toContainText('Disabled');
    await expect(card.getByTestId('held-deliveries')).toContainText('3 events held');
    await shot(page, info, 'bo-16-webhooks-held');

    status = 200;
    await card.getByRole('button', { name: 'Enable endpoint' }).click();
    await expect.poll(() => receiver.ids.length, { timeout: 15_000 }).toBe(4);
    expect(receiver.ids[1]).toBe(receiver.ids[0]); // the event that got the 410 goes first, then the later ones
    expect(new Set(receiver.ids.slice(1)).size).toBe(3);
    await expect(card).toContainText('Healthy', { timeout: 20_000 });
    await expect(card.getByTestId('held-deliveries')).toHaveCount(0, { timeout: 20_000 });
  } finally {
    receiver.server.close();
  }
});
