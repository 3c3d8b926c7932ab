import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { openSession, startMomo } from '../support/checkout';
import { createLogger } from '../../server/runtime';
import { loggableUrl } from '../../server/http/request-log';
import { sessionWithSlip, staff } from '../support/backoffice';

/** Request logs never carry capability ids (session ids, slip tokens, attempt references). */
describe('request log redaction', () => {
  const lines: string[] = [];
  let t: TestContext;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    t = await createTestApp({ logger: createLogger('info', sink) });
  });
  afterAll(async () => t.close());

  it('logs the prefix and last four characters of cs_…, slp_… and pa_… ids in paths, never the whole id', async () => {
    const m = await t.merchant();
    const slip = await sessionWithSlip(t, m);
    const teller = await staff(t, 'teller');
    await t.app.inject({ method: 'GET', url: `/api/backoffice/v1/cash-slips/${slip.slip_token}`, headers: { authorization: `Bearer ${teller.token}` } });
    const s = await openSession(t, m);
    const attempt = await startMomo(t, s.id);
    await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${s.id}/provider-attempts/${attempt.attempt_reference}` });
    await t.app.inject({ method: 'GET', url: `/checkout/${s.id}` });
    await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/%63${s.id.slice(1)}?refresh=1` });

    const urls = lines.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter((u): u is string => !!u);
    expect(urls.length).toBeGreaterThan(6);
    const log = lines.join('\n');
    for (const secret of [slip.slip_token, slip.session_id, s.id, attempt.attempt_reference, s.id.slice(1)]) {
      expect(log, secret).not.toContain(secret);
    }
    expect(urls).toContain(`/api/backoffice/v1/cash-slips/slp_***${slip.slip_token.slice(-4)}`);
    expect(urls).toContain(`/checkout/cs_test_***${s.id.slice(-4)}`);
    expect(urls).toContain(`/api/v1/checkout/sessions/cs_test_***${s.id.slice(-4)}/provider-attempts/pa_***${attempt.attempt_reference.slice(-4)}`);
    expect(urls).toContain(`/api/v1/checkout/sessions/cs_test_***${s.id.slice(-4)}?refresh=1`);
  });

  it("never logs a client's X-Request-Id unbounded, nor a typed slip reference", async () => {
    const m = await t.merchant();
    const slip = await sessionWithSlip(t, m);
    const teller = await staff(t, 'teller');
    const huge = `x${'A'.repeat(12_000)}`;
    lines.length = 0;
    await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': huge } });
    await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-42.ok' } });
    await t.app.inject({ method: 'GET', url: `/api/backoffice/v1/cash-slips/${encodeURIComponent(slip.reference.toLowerCase())}`, headers: { authorization: `Bearer ${teller.token}` } });
    const log = lines.join('\n');
    expect(log).not.toContain('AAAAAAAAAA');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(2000);
    expect(lines.some((l) => (JSON.parse(l) as { reqId?: string }).reqId === 'trace-42.ok')).toBe(true);
    expect(log).not.toContain(slip.reference);
    expect(log.toLowerCase()).not.toContain(slip.reference.toLowerCase());
    expect(log).toContain(`/cash-slips/***${slip.reference.toLowerCase().slice(-2)}`);
  });

  it('leaves other paths alone', () => {
    expect(loggableUrl('/api/v1/sessions?invoice_ref=INV-1')).toBe('/api/v1/sessions?invoice_ref=INV-1');
    expect(loggableUrl('/api/backoffice/v1/invoices/space_cs_x')).toBe('/api/backoffice/v1/invoices/space_cs_x');
  });
});
