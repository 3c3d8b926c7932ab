import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { version } from '../../package.json';
import { createLogger } from '../../server/runtime';
import { randomIds } from '../../server/lib/ids';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';
import { paidSession } from '../support/webhooks';

/**
 * What an operator watches: the build in /healthz and every log line, the request id a client
 * can quote (bounded, echoed, in the error envelope), one log line per request, /metrics and
 * /readyz's webhook backlog limit.
 */
describe('request ids, build and one log line per request', () => {
  const lines: Array<Record<string, unknown>> = [];
  let t: TestContext;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    t = await createTestApp({ logger: createLogger('info', sink) });
  });
  afterAll(async () => t.close());

  it('/healthz names the version from package.json and a commit', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.json()).toEqual({ status: 'ok', version, commit: expect.stringMatching(/^([0-9a-f]{7,40}|unknown)$/) });
  });

  it('keeps a bounded X-Request-Id, echoes it in the header and in error.request_id; refuses anything else for a fresh id', async () => {
    const given = 'edge-proxy:3f2a.91_x';
    const ok = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': given } });
    expect(ok.headers['x-request-id']).toBe(given);
    const err = await t.app.inject({ method: 'GET', url: '/api/v1/sessions/cs_test_nope', headers: { 'x-request-id': given } });
    expect(err.statusCode).toBe(401);
    expect(err.headers['x-request-id']).toBe(given);
    expect(err.json().error.request_id).toBe(given);

    for (const bad of ['a'.repeat(129), 'two words', 'new\\nline', '<script>', '']) {
      const res = await t.app.inject({ method: 'GET', url: '/no-such-page', headers: { 'x-request-id': bad } });
      expect(res.statusCode).toBe(404);
      const id = res.headers['x-request-id'] as string;
      expect(id, bad).not.toBe(bad);
      expect(id).toMatch(/^req_[A-Za-z0-9]+\.[0-9a-z]+$/);
      expect(res.json().error.request_id).toBe(id);
    }
    const longest = 'b'.repeat(128);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': longest } })).headers['x-request-id']).toBe(longest);
  });

  it('writes exactly one line per request, with the request id, status, time and the build', async () => {
    const id = `probe-${randomIds.token('x', 8)}`;
    await t.app.inject({ method: 'GET', url: '/api/v1/checkout/options', headers: { 'x-request-id': id } });
    const mine = lines.filter((l) => l.reqId === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ msg: 'request completed', res: { statusCode: expect.any(Number) }, responseTime: expect.any(Number), req: { method: 'GET' }, version, commit: expect.any(String) });
  });
});

describe('/metrics', () => {
  let t: TestContext | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is not served unless asked for', async () => {
    t = await createTestApp();
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('with METRICS=on answers every family on the listening port, with requests counted by route pattern', async () => {
    t = await createTestApp({ env: { METRICS: 'on' } });
    await t.app.inject({ method: 'GET', url: '/api/v1/checkout/sessions/cs_test_unknown1234' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = res.body;
    for (const family of [
      'paydesk_http_requests_total',
      'paydesk_http_request_duration_seconds_bucket',
      'nodejs_eventloop_lag_seconds',
      'paydesk_db_pool_connections',
      'paydesk_db_pool_waiting',
      'paydesk_db_transaction_retries_total',
      'paydesk_db_statements_total',
      'paydesk_db_pool_waits_total',
      'paydesk_sqlite_commit_batch_size_bucket',
      'paydesk_sqlite_checkpoints_total',
      'paydesk_sqlite_checkpoint_last_seconds',
      'paydesk_webhook_deliveries',
      'paydesk_webhook_oldest_due_age_seconds',
      'paydesk_webhook_lease_takeovers_total',
      'paydesk_sweeper_tick_duration_seconds_bucket',
      'paydesk_rate_limit_store_fallbacks_total',
      'paydesk_build_info',
    ]) {
      expect(body, family).toMatch(new RegExp(`^${family}[{ ]`, 'm'));
    }
    expect(body).toContain('route="/api/v1/checkout/sessions/:reference"');
    expect(body).not.toContain('cs_test_unknown1234');
    // PostgreSQL counts the statements it sent (the lookup above was one); SQLite has no round trips.
    const statements = Number(/^paydesk_db_statements_total (\d+)/m.exec(body)?.[1]);
    if (onPostgres) expect(statements).toBeGreaterThan(0);
    else expect(statements).toBe(0);
    expect(body).toMatch(new RegExp(`paydesk_build_info\\{version="${version.replace(/\./g, '\\.')}",commit="[^"]+",engine="(sqlite|postgres)",schema="\\d{4}_[a-z0-9_]+"\\} 1`));
  });

  it('with METRICS_PORT serves them on 127.0.0.1 on a port of their own, not on the listening port', async () => {
    t = await createTestApp({ env: { METRICS_PORT: '0' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = t.app.metrics!.url!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('paydesk_build_info');
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('counts the webhook backlog, and /readyz fails once a delivery is due longer than READY_MAX_BACKLOG_AGE_S', async () => {
    t = await createTestApp({ env: { METRICS: 'on', READY_MAX_BACKLOG_AGE_S: '60' } });
    const ctx = t;
    const m = await ctx.merchant(undefined, 'http://127.0.0.1:9/hook');
    // A paid session's event: its delivery is due now, and no dispatcher runs in this test.
    await paidSession(ctx, m.api_key);
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    ctx.clock.advanceSeconds(600);
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json().error.message).toMatch(/webhook delivery has been due for 600 s/);
    const body = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(body).toMatch(/^paydesk_webhook_deliveries\{state="due"\} 1$/m);
    expect(body).toMatch(/^paydesk_webhook_oldest_due_age_seconds 600$/m);
  });
});
