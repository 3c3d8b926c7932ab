import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORM_FIELDS } from '../../server/http/body-parsers';
import { createTestApp, type TestContext } from '../support/app';
import { envelope } from '../support/http';

/**
 * A form body's fields are counted before anything parses them: a 1 MiB multipart body of
 * 16,000 names to the public, unauthenticated cash-slip route used to block the event loop
 * 0.2-1.6 s (every other request waited). The bound below is generous on purpose (a loaded
 * 2-core machine); the old parse took hundreds of milliseconds to seconds.
 */
const BOUNDARY = 'b';
const MiB = 1_048_576;
const multipartOf = (fields: Array<[string, string]>) =>
  Buffer.from(`${fields.map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}--${BOUNDARY}--\r\n`);

/** The longest event-loop delay (ms) while `run` goes on. */
async function worstDelay(run: () => Promise<unknown>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  try {
    await run();
    await new Promise((r) => setTimeout(r, 5)); // one more tick of the monitor after the work
  } finally {
    h.disable();
  }
  return h.max / 1e6;
}

describe('form bodies cannot cost seconds of CPU', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());
  const send = (payload: Buffer | string, type: string) => t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', headers: { 'content-type': type }, payload });

  it('refuses a 1 MiB multipart body of 16,000 names with 400, without blocking the event loop', async () => {
    const names = Array.from({ length: 16_000 }, (_, i): [string, string] => [`m[${i}]`, 'x']);
    const body = multipartOf(names);
    expect(body.length).toBeGreaterThan(0.85 * MiB);
    expect(body.length).toBeLessThanOrEqual(MiB);
    let status = 0;
    let message = '';
    const delay = await worstDelay(async () => {
      const res = await send(body, `multipart/form-data; boundary=${BOUNDARY}`);
      status = res.statusCode;
      message = envelope(res).message;
    });
    expect(status).toBe(400);
    expect(message).toMatch(new RegExp(`at most ${MAX_FORM_FIELDS} fields`));
    expect(delay, `event loop blocked ${delay.toFixed(1)} ms`).toBeLessThan(100);
  });

  it('parses the largest body it accepts (100 fields, 1 MiB) with the event loop blocked well under the old seconds', async () => {
    const value = 'v'.repeat(Math.floor(MiB / MAX_FORM_FIELDS) - 120);
    const body = multipartOf(Array.from({ length: MAX_FORM_FIELDS }, (_, i): [string, string] => [`metadata[k${i}]`, value]));
    expect(body.length).toBeLessThanOrEqual(MiB);
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      delays.push(await worstDelay(async () => {
        const res = await send(body, `multipart/form-data; boundary=${BOUNDARY}`);
        expect(res.statusCode).toBe(400); // session_id is missing: the body was parsed and validated
        expect(envelope(res).message).toMatch(/^session_id/);
      }));
    }
    // The best of three: a neighbour's CPU burst should not fail this; the old parse of such a body was 0.1-0.3 s every time.
    expect(Math.min(...delays), `delays ${delays.map((d) => d.toFixed(1)).join(', ')} ms`).toBeLessThan(50);
  });

  it('refuses an urlencoded body of more than 100 fields the same way', async () => {
    const body = Array.from({ length: 60_000 }, (_, i) => `a[${i}]=x`).join('&');
    let res: Awaited<ReturnType<typeof send>> | undefined;
    const delay = await worstDelay(async () => {
      res = await send(body, 'application/x-www-form-urlencoded');
    });
    expect(res!.statusCode).toBe(400);
    expect(envelope(res!).message).toMatch(new RegExp(`at most ${MAX_FORM_FIELDS} fields`));
    expect(delay, `event loop blocked ${delay.toFixed(1)} ms`).toBeLessThan(100);
    const ok = await send(Array.from({ length: MAX_FORM_FIELDS }, (_, i) => `metadata[k${i}]=x`).join('&'), 'application/x-www-form-urlencoded');
    expect(envelope(ok).message).toMatch(/^session_id/);
  });
});
