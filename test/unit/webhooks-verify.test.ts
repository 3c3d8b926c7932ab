import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, timingSafeEqualBytes, verifyWebhook } from '../../shared/webhooks/verify';
import { deliveryHeaders } from '../../server/modules/webhooks/signing';

const secret = 'whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const body = '{"id":"evt_1","type":"checkout.session.completed","data":{"session":{"id":"cs_1","status":"success","amount_minor":2500,"currency":"GHS","invoice_ref":"INV-1","metadata":{"note":"café"}}}}';
const NOW = Date.UTC(2026, 5, 1, 9, 0, 0);
const t = Math.floor(NOW / 1000);

/** Signed independently of the code under test: Node's HMAC, not Web Crypto. */
const sign = (b: string | Buffer, ts = t, key = secret) => `t=${ts},v1=${createHmac('sha256', key).update(`${ts}.`).update(b).digest('hex')}`;

describe('verifyWebhook (receiver rules 1–4)', () => {
  it('accepts the raw body with a valid signature, as a string or as bytes', async () => {
    expect(await verifyWebhook(body, sign(body), secret, { now: NOW })).toEqual({ ok: true, timestamp: t });
    expect(await verifyWebhook(Buffer.from(body), sign(body), secret, { now: new Date(NOW) })).toEqual({ ok: true, timestamp: t });
  });

  it('accepts what the server signs (both header schemes share the timestamp)', async () => {
    const h = deliveryHeaders({ id: 'evt_1', type: 'checkout.session.completed', payload: body }, { current: secret, previous: null }, t);
    expect(await verifyWebhook(body, h['x-service-signature'], secret, { now: NOW })).toEqual({ ok: true, timestamp: t });
    expect(h['webhook-timestamp']).toBe(String(t));
  });

  it('refuses a tampered body', async () => {
    const tampered = body.replace('"amount_minor":2500', '"amount_minor":25');
    expect(await verifyWebhook(tampered, sign(body), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    // One byte appended (a trailing newline added by a proxy or framework) is also a different body.
    expect(await verifyWebhook(`${body}\n`, sign(body), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a re-serialised parse of the body (rule 1)', async () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    expect(await verifyWebhook(pretty, sign(body), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    // Same JSON value, different bytes: an escaped character the sender wrote literally.
    const escaped = body.replace('café', 'caf\\u00e9');
    expect(JSON.parse(escaped)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(escaped, sign(body), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses a stale t and a future t beyond 300 s, and accepts the edges', async () => {
    expect(await verifyWebhook(body, sign(body, t - 301), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
    expect(await verifyWebhook(body, sign(body, t + 301), secret, { now: NOW })).toMatchObject({ ok: false, reason: 'timestamp_in_future' });
    expect((await verifyWebhook(body, sign(body, t - 300), secret, { now: NOW })).ok).toBe(true);
    expect((await verifyWebhook(body, sign(body, t + 300), secret, { now: NOW })).ok).toBe(true);
    // A custom tolerance.
    expect(await verifyWebhook(body, sign(body, t - 61), secret, { now: NOW, toleranceSeconds: 60 })).toMatchObject({ ok: false, reason: 'timestamp_too_old' });
  });

  it('refuses a stale t even when its signature is valid (a replay)', async () => {
    const replay = sign(body, t);
    expect(await verifyWebhook(body, replay, secret, { now: NOW + 3600_000 })).toMatchObject({ ok: false, reason: 'timestamp_too_old', message: expect.stringContaining('3600 s old') });
  });

  it('refuses the wrong secret', async () => {
    expect(await verifyWebhook(body, sign(body), 'whsec_not_the_one', { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    // The signature must cover t: signing the body alone does not pass.
    const bodyOnly = `t=${t},v1=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect(await verifyWebhook(body, bodyOnly, secret, { now: NOW })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts a header with two v1 values when either matches (rotation overlap)', async () => {
    const other = createHmac('sha256', 'whsec_previous').update(`${t}.${body}`).digest('hex');
    const mine = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect((await verifyWebhook(body, `t=${t},v1=${other},v1=${mine}`, secret, { now: NOW })).ok).toBe(true);
    expect((await verifyWebhook(body, `t=${t},v1=${mine},v1=${other}`, secret, { now: NOW })).ok).toBe(true);
    expect((await verifyWebhook(body, `t=${t},v1=${other},v1=${other}`, secret, { now: NOW })).ok).toBe(false);
    // Upper-case hex and spaces after commas are tolerated; unknown schemes are ignored.
    expect((await verifyWebhook(body, `t=${t}, v0=abc, v1=${mine.toUpperCase()}`, secret, { now: NOW })).ok).toBe(true);
  });

  it.each([
    [undefined, 'signature header is missing'],
    ['', 'signature header is missing'],
    ['v1=' + 'a'.repeat(64), 'signature header has no t'],
    [`t=${t}`, 'signature header has no v1'],
    [`t=abc,v1=${'a'.repeat(64)}`, 't must be a whole number of seconds'],
    [`t=-5,v1=${'a'.repeat(64)}`, 't must be a whole number of seconds'],
    [`t=${t},v1=xyz`, 'v1 must be 64 hexadecimal characters'],
    [`t=${t},v1=${'a'.repeat(63)}`, 'v1 must be 64 hexadecimal characters'],
    [`t=${t},t=${t},v1=${'a'.repeat(64)}`, 'signature header has more than one t'],
    [`t${t};v1${'a'.repeat(64)}`, 'is not key=value'],
    ['sha256=deadbeef', 'signature header has no t'],
  ])('refuses a malformed header %j', async (h, message) => {
    const r = await verifyWebhook(body, h, secret, { now: NOW });
    expect(r).toMatchObject({ ok: false, reason: 'malformed_header' });
    expect(r.ok ? '' : r.message).toContain(message);
  });

  it('never throws or rejects on bad input: a missing or empty secret is a result, not a DataError', async () => {
    const env: Record<string, string | undefined> = {}; // PAYDESK_WEBHOOK_SECRET unset
    for (const missing of [undefined, null, '', env.PAYDESK_WEBHOOK_SECRET]) {
      const r = await verifyWebhook(body, sign(body), missing as string, { now: NOW });
      expect(r).toMatchObject({ ok: false, reason: 'missing_secret', message: expect.stringContaining('secret') });
    }
    // A parsed body, a number, a duplicated header, an invalid clock or tolerance: results too.
    const bad: Array<[unknown, unknown, unknown, unknown, string]> = [
      [JSON.parse(body), sign(body), secret, { now: NOW }, 'invalid_input'],
      [undefined, sign(body), secret, { now: NOW }, 'invalid_input'],
      [42, sign(body), secret, { now: NOW }, 'invalid_input'],
      [body, [sign(body), sign(body)], secret, { now: NOW }, 'malformed_header'],
      [body, sign(body), 12345, { now: NOW }, 'missing_secret'],
      [body, sign(body), secret, { now: new Date('not a date') }, 'invalid_input'],
      [body, sign(body), secret, { now: 'yesterday' }, 'invalid_input'],
      [body, sign(body), secret, { now: NOW, toleranceSeconds: Number.NaN }, 'invalid_input'],
      [body, sign(body), secret, { now: NOW, toleranceSeconds: -1 }, 'invalid_input'],
    ];
    for (const [b, h, s, o, reason] of bad) {
      const call = verifyWebhook(b as string, h as string, s as string, o as { now: number });
      await expect(call).resolves.toMatchObject({ ok: false });
      expect(await call).toMatchObject({ ok: false, reason });
    }
  });

  it('an invalid clock is refused rather than letting any t through', async () => {
    // NaN comparisons are false: without the check a year-old signature would pass.
    const old = sign(body, t - 365 * 86_400);
    expect(await verifyWebhook(body, old, secret, { now: Number.NaN })).toMatchObject({ ok: false, reason: 'invalid_input' });
  });

  it('parses the header into t and every v1', () => {
    expect(parseSignatureHeader(`t=12,v1=${'A'.repeat(64)},v1=${'b'.repeat(64)}`)).toEqual({ t: 12, v1: ['a'.repeat(64), 'b'.repeat(64)] });
  });

  it('compares bytes without depending on where they differ', () => {
    expect(timingSafeEqualBytes(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(timingSafeEqualBytes(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(timingSafeEqualBytes(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2]))).toBe(false);
  });
});
