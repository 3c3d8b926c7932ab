/**
 * Verifying a Paydesk webhook in a merchant's own receiver (docs/webhooks.md, receiver
 * rules 1–4). Pure and portable: it uses only Web Crypto (`globalThis.crypto.subtle`) and
 * TextEncoder, so it runs unchanged in Node ≥ 20, Deno, Bun, Cloudflare Workers and browsers.
 * There is no Node-only variant; Web Crypto's HMAC is async, hence the Promise.
 *
 *   const result = await verifyWebhook(rawBody, req.headers['x-service-signature'], secret);
 *   if (!result.ok) return reply.code(400).send({ error: result.reason });
 *
 * Rules applied, in order:
 *   1. the signature is computed over the raw body exactly as received (string or bytes);
 *      a re-serialised parse of it will not verify;
 *   2. `t` and every `v1` are parsed from `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`
 *      (two `v1` values are sent while a secret rotation overlaps; either may match);
 *   3. `t` more than `toleranceSeconds` (300) away from `now`, either side, is refused;
 *   4. HMAC-SHA256(secret, `${t}.${rawBody}`) is compared with each `v1` in constant time.
 * Rules 5–6 (event-id dedupe, amount / currency / invoice_ref checks) need the merchant's
 * own storage: see `receiver.ts` beside this file and docs/webhooks.md.
 */

export type WebhookVerifyFailure =
  /** The header is missing, or not `t=<digits>,v1=<64 hex>` (reason text says what is wrong). */
  | 'malformed_header'
  /** `t` is older than the tolerance: a replay, or a delivery held too long. */
  | 'timestamp_too_old'
  /** `t` is ahead of `now` by more than the tolerance: check the receiver's clock. */
  | 'timestamp_in_future'
  /** No `v1` matches: wrong secret, or the body is not the raw body as sent. */
  | 'signature_mismatch'
  /** The secret is missing, empty or not a string: a configuration error on the receiver's side. */
  | 'missing_secret'
  /** The body is not a string or bytes (e.g. an already parsed object), or an option is invalid. */
  | 'invalid_input';

export type WebhookVerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: WebhookVerifyFailure; message: string };

export interface VerifyOptions {
  /** Largest accepted |now − t|, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock; default `new Date()`. */
  now?: Date | number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Parses `t=…,v1=…[,v1=…]`; unknown keys (future schemes) are ignored, as Stripe's libraries do. */
export function parseSignatureHeader(header: string | null | undefined): { t: number; v1: string[] } | { error: string } {
  if (header === undefined || header === null || header.trim() === '') return { error: 'signature header is missing' };
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { error: `signature header element "${part.trim()}" is not key=value` };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined) return { error: 'signature header has more than one t' };
      if (!/^\d{1,12}$/.test(value)) return { error: 't must be a whole number of seconds' };
      t = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return { error: 'v1 must be 64 hexadecimal characters' };
      v1.push(value.toLowerCase());
    }
  }
  if (t === undefined) return { error: 'signature header has no t' };
  if (v1.length === 0) return { error: 'signature header has no v1' };
  return { t, v1 };
}

const encoder = new TextEncoder();

function toBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Compares two byte arrays in time that depends only on their length, never on their contents. */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** HMAC-SHA256 of `${t}.${rawBody}` keyed with the secret's UTF-8 bytes. */
export async function computeSignature(rawBody: string | Uint8Array, secret: string, t: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${t}.`);
  const body = toBytes(rawBody);
  const data = new Uint8Array(prefix.length + body.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
}

/**
 * Applies receiver rules 1–4. Returns `{ ok: true, timestamp }` or a failure with a reason
 * code and a readable message; it never throws or rejects, whatever it is given (a missing
 * secret, a parsed body, an invalid date): a receiver that forgot to configure its secret
 * gets `missing_secret`, not a crash in its webhook handler.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string | null | undefined,
  options: VerifyOptions = {},
): Promise<WebhookVerifyResult> {
  try {
    return await verify(rawBody, signatureHeader, secret, options ?? {});
  } catch (err) {
    // Nothing above is expected to throw; this keeps the promise of the signature anyway.
    return { ok: false, reason: 'invalid_input', message: `could not verify: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function verify(rawBody: unknown, signatureHeader: unknown, secret: unknown, options: VerifyOptions): Promise<WebhookVerifyResult> {
  if (typeof secret !== 'string' || secret.length === 0) {
    return { ok: false, reason: 'missing_secret', message: 'the signing secret is missing or empty: pass the endpoint\'s whsec_… secret' };
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    return { ok: false, reason: 'invalid_input', message: 'the raw body must be a string or bytes exactly as received, not a parsed object' };
  }
  if (signatureHeader !== undefined && signatureHeader !== null && typeof signatureHeader !== 'string') {
    // e.g. an array when a proxy duplicated the header
    return { ok: false, reason: 'malformed_header', message: 'signature header must be a single string' };
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    return { ok: false, reason: 'invalid_input', message: 'toleranceSeconds must be a number of seconds, 0 or more' };
  }
  const now = options.now;
  const nowMs = now === undefined ? Date.now() : typeof now === 'number' ? now : now instanceof Date ? now.getTime() : NaN;
  // An invalid clock would make every timestamp comparison false, i.e. accept any t.
  if (!Number.isFinite(nowMs)) return { ok: false, reason: 'invalid_input', message: 'now must be a valid Date or a number of milliseconds' };
  const parsed = parseSignatureHeader(signatureHeader);
  if ('error' in parsed) return { ok: false, reason: 'malformed_header', message: parsed.error };
  const nowS = Math.floor(nowMs / 1000);
  if (nowS - parsed.t > tolerance) {
    return { ok: false, reason: 'timestamp_too_old', message: `t is ${nowS - parsed.t} s old; at most ${tolerance} s is accepted` };
  }
  if (parsed.t - nowS > tolerance) {
    return { ok: false, reason: 'timestamp_in_future', message: `t is ${parsed.t - nowS} s ahead of this clock; at most ${tolerance} s is accepted` };
  }
  const expected = await computeSignature(rawBody, secret, parsed.t);
  let matched = false;
  // Check every candidate (no early exit), so timing does not reveal which one matched.
  for (const candidate of parsed.v1) matched = timingSafeEqualBytes(expected, hexToBytes(candidate)) || matched;
  if (!matched) return { ok: false, reason: 'signature_mismatch', message: 'no v1 signature matches this secret and the raw body' };
  return { ok: true, timestamp: parsed.t };
}
