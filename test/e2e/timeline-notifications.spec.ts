import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { adminCli, shot, call, signInWithApi } from './support';
import { budgetNow } from '../support/pace';

/**
 * A session's finance timeline words its notifications to the merchant's server for a clerk: a
 * refused one says why and that it was tried again, the accepted one says so, in English and in
 * French; the technical record (address, latency) stays on the webhooks screen.
 */
const PASSWORD = 'e2e-timeline-notices-1234';
const run = `${Date.now() % 1_000_000}${process.pid % 100_000}`;


/** Answers 503 to the first notification, 200 after: one refusal, then the retry is accepted. */
function flakyReceiver(): Promise<{ server: Server; url: string }> {
  let n = 0;
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(++n === 1 ? 503 : 200).end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` })));
}

const signIn = (page: Page, username: string) => signInWithApi(page, username, PASSWORD);

test('a refused then accepted notification reads as sentences, in English and French', async ({ page }, info) => {
  test.setTimeout(budgetNow(90_000));
  const receiver = await flakyReceiver();
  try {
    const m = adminCli(['integration:create', '--merchant', `Timeline Notices ${run}-${info.project.name}`, '--webhook-url', receiver.url]);
    const username = `tl.fin.${run}.${info.project.name}`;
    adminCli(['staff:create', '--username', username, '--password', PASSWORD, '--role', 'finance', '--merchant', m.merchant_id!]);
    const s = await call<{ id: string }>('/api/v1/sessions', { amount_minor: 2_500, invoice_ref: `TL-${run}`, currency: 'GHS' }, m.api_key);
    const quote = await call<{ surcharges: { card: { total_minor: number } } }>(`/api/v1/checkout/sessions/${s.id}/quote`);
    await call(`/api/v1/checkout/sessions/${s.id}/card-payments`, { amount_minor: quote.surcharges.card.total_minor, card_number: '4242424242424242', expiry_month: 12, expiry_year: 2099, cvc: '123' });

    await signIn(page, username);
    const timeline = page.getByTestId('session-timeline');
    // The first retry is a few seconds after the refusal: reload until both are on the timeline.
    await expect(async () => {
      await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(s.id)}?lang=en`);
      await expect(timeline).toContainText('accepted by the merchant’s server', { timeout: 2_000 });
    }).toPass({ timeout: 45_000 });
    await expect(timeline).toContainText(/Notification not accepted: payment completed, the merchant’s server refused it \(HTTP 503\); tried again at \w{3} \d{1,2}, \d{4}/);
    await expect(timeline).toContainText('Merchant notified: payment completed, accepted by the merchant’s server');
    await expect(timeline).not.toContainText(/webhook|\/hooks|\d+ ms\b/i);
    await timeline.locator('li').last().scrollIntoViewIfNeeded();
    await shot(page, info, 'timeline-notifications-en', { fullPage: false });

    await page.goto(`/backoffice/finance/sessions/${encodeURIComponent(s.id)}?lang=fr`);
    await expect(timeline).toContainText(/Notification non acceptée : paiement effectué, le serveur du marchand l’a refusée \(HTTP 503\) ; nouvel essai fait à /);
    await expect(timeline).toContainText('Marchand notifié : paiement effectué, accepté par le serveur du marchand');
    await timeline.locator('li').last().scrollIntoViewIfNeeded();
    await shot(page, info, 'timeline-notifications-fr', { fullPage: false });
  } finally {
    receiver.server.close();
  }
});
