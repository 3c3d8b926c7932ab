import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORM_FIELDS } from '../../server/http/body-parsers';
import { createTestApp, type TestContext } from '../support/app';
import { envelope } from '../support/http';

/**
 * A form body's fields are counted before anything parses them: a 1 MiB multipart body of
 * 16,000 names to the public, unauthenticated cash-slip route used to block the event loop
 * 0.2-1.6 s (every other request waited). What is bounded is the CPU the request costs this
 * process: on an idle core, at least as long as it holds the event loop; unlike the wall clock,
 * it does not grow when other processes share the cores. The bounds are generous; the old parse
 * cost hundreds of milliseconds to seconds.
 */
const BOUNDARY = 'b';
const MiB = 1_048_576;
const multipartOf = (fields: Array<[string, string]>) =>
  Buffer.from(`${fields.map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')}--${BOUNDARY}--\r\n`);

interface Cost {
  /** CPU ms this process spent while `run` went on (all its threads: at least what the event loop did). */
  cpuMs: number;
  /** The longest event-loop delay (ms), wall clock: for the failure message; it grows with the machine's load. */
  delayMs: number;
}

async function costOf(run: () => Promise<unknown>): Promise<Cost> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const cpu0 = process.cpuUsage();
  try {
    await run();
    const cpu = process.cpuUsage(cpu0);
    await new Promise((r) => setTimeout(r, 5)); // one more tick of the monitor after the work
    return { cpuMs: (cpu.user + cpu.system) / 1000, delayMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}
const shown = (c: Cost) => `${c.cpuMs.toFixed(1)} ms of CPU, event loop delayed up to ${c.delayMs.toFixed(1)} ms`;

/**
 * The cheapest of three runs, with all three for the failure message. One reading can take in the
 * first request's compiling of the route's code (69-129 ms for the 16,000-name refusal on a busy
 * machine, 3-9 ms after), a collection of garbage, or being preempted mid-request; the old parse
 * cost 0.1-1.6 s every time.
 */
async function cheapestOf3(run: () => Promise<unknown>): Promise<{ cpuMs: number; shown: string }> {
  const costs: Cost[] = [];
  for (let i = 0; i < 3; i++) costs.push(await costOf(run));
  return { cpuMs: Math.min(...costs.map((c) => c.cpuMs)), shown: costs.map(shown).join('; ') };
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
    const cost = await cheapestOf3(async () => {
      const res = await send(body, `multipart/form-data; boundary=${BOUNDARY}`);
      expect(res.statusCode).toBe(400);
      expect(envelope(res).message).toMatch(new RegExp(`at most ${MAX_FORM_FIELDS} fields`));
    });
    expect(cost.cpuMs, cost.shown).toBeLessThan(100);
  });

  it('parses the largest body it accepts (100 fields, 1 MiB) at a CPU cost well under the old seconds', async () => {
    const value = 'v'.repeat(Math.floor(MiB / MAX_FORM_FIELDS) - 120);
    const body = multipartOf(Array.from({ length: MAX_FORM_FIELDS }, (_, i): [string, string] => [`metadata[k${i}]`, value]));
    expect(body.length).toBeLessThanOrEqual(MiB);
    const cost = await cheapestOf3(async () => {
      const res = await send(body, `multipart/form-data; boundary=${BOUNDARY}`);
      expect(res.statusCode).toBe(400); // session_id is missing: the body was parsed and validated
      expect(envelope(res).message).toMatch(/^session_id/);
    });
    // The old parse of such a body cost 0.1-0.3 s every time.
    expect(cost.cpuMs, cost.shown).toBeLessThan(50);
  });

  it('refuses an urlencoded body of more than 100 fields the same way', async () => {
    const body = Array.from({ length: 60_000 }, (_, i) => `a[${i}]=x`).join('&');
    const cost = await cheapestOf3(async () => {
      const res = await send(body, 'application/x-www-form-urlencoded');
      expect(res.statusCode).toBe(400);
      expect(envelope(res).message).toMatch(new RegExp(`at most ${MAX_FORM_FIELDS} fields`));
    });
    expect(cost.cpuMs, cost.shown).toBeLessThan(100);
    const ok = await send(Array.from({ length: MAX_FORM_FIELDS }, (_, i) => `metadata[k${i}]=x`).join('&'), 'application/x-www-form-urlencoded');
    expect(envelope(ok).message).toMatch(/^session_id/);
  });
});
