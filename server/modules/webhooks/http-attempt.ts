import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { refusedAddress, refusedUrl, type UrlPolicy } from './url-policy';

/**
 * One webhook POST over node:http(s), connected only to addresses the URL policy allows.
 *
 * Why not fetch: the check must run on the address actually connected to, after DNS, so a
 * name that passed at save time and now resolves to 169.254.169.254 or to Paydesk itself
 * (DNS rebinding) is refused. node's http accepts a `lookup` per request; IP-literal hosts
 * skip DNS, so the URL itself is checked first. Keep-alive agents are kept per mode, so a
 * connection opened under the test rules is never reused for a live endpoint.
 *
 * What is kept of the answer: the status, at most RESPONSE_EXCERPT_BYTES of the body, and
 * only the headers in RESPONSE_HEADER_ALLOWLIST: what a developer needs to see why a
 * delivery failed, not whatever an unexpected service sends back.
 */
export const RESPONSE_EXCERPT_BYTES = 1024;
export const RESPONSE_HEADER_ALLOWLIST = ['content-type', 'content-length', 'date', 'server', 'retry-after', 'location', 'x-request-id'] as const;
export const BLOCKED_CODE = 'EWEBHOOKBLOCKED';

export interface PostResult {
  statusCode: number;
  retryAfter: string | null;
  /** JSON object of the allow-listed response headers. */
  responseHeaders: string;
  excerpt: string | null;
}

export interface WebhookHttpClient {
  /**
   * POSTs `body`; rejects with a `TimeoutError` when connect + answer + excerpt take longer than
   * `timeoutMs`, with an `AbortError` when `abortAll()` cut it.
   */
  post(url: string, headers: Record<string, string>, body: string, policy: UrlPolicy, timeoutMs: number): Promise<PostResult>;
  /** Cuts every request in flight (shutdown): each rejects with an `AbortError`. */
  abortAll(): void;
  close(): void;
}

const named = (name: 'TimeoutError' | 'AbortError', message: string) => Object.assign(new Error(message), { name });

/** Parsed endpoint URLs (the URL rules are still applied on every attempt). */
const PARSED_URLS_MAX = 1_000;

const blocked = (message: string) => Object.assign(new Error(message), { code: BLOCKED_CODE });

/** A dns.lookup that refuses names resolving to any address the policy forbids. */
export function guardedLookup(policy: UrlPolicy, port: number): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      // One forbidden answer refuses the name: a rebinding resolver mixes good and bad ones.
      for (const a of addresses) {
        const why = refusedAddress(a.address, port, policy);
        if (why) return callback(blocked(`${hostname} resolves to ${why}`), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/** The allow-listed response headers as a JSON object (several values of one header joined). */
export function allowedHeadersJson(headers: IncomingMessage['headers']): string {
  const out: Record<string, string> = {};
  for (const name of RESPONSE_HEADER_ALLOWLIST) {
    const v = headers[name];
    if (v === undefined) continue;
    out[name] = (Array.isArray(v) ? v.join(', ') : String(v)).slice(0, 300);
  }
  return JSON.stringify(out);
}

/** Reads at most `maxBytes` of the body; a longer one is cut (at a character boundary) and marked with "…". */
function readExcerpt(res: IncomingMessage, maxBytes: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      let text = Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
      if (truncated) {
        text = `${text.replace(/\uFFFD+$/, '')}…`;
        res.destroy(); // the rest is not wanted; this connection is not reused
      }
      resolve(text.length > 0 ? text : null);
    };
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) finish(true);
    });
    res.on('end', () => finish(false));
    res.on('error', () => finish(true));
    res.on('close', () => finish(true)); // destroyed before the end (timeout, shutdown): keep what came

  });
}

export function createWebhookHttpClient(): WebhookHttpClient {
  const agentOptions = { keepAlive: true, scheduling: 'lifo' as const };
  const agents = {
    test: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
    live: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  };
  const live = new Set<http.ClientRequest>();
  const parsed = new Map<string, URL>();
  const parse = (url: string): URL => {
    let target = parsed.get(url);
    if (!target) {
      target = new URL(url);
      if (parsed.size >= PARSED_URLS_MAX) parsed.clear();
      parsed.set(url, target);
    }
    return target;
  };
  return {
    post(url, headers, body, policy, timeoutMs) {
      return new Promise<PostResult>((resolve, reject) => {
        let target: URL;
        try {
          target = parse(url);
        } catch {
          return reject(blocked('the endpoint URL is not a valid URL'));
        }
        const why = refusedUrl(target, policy);
        if (why) return reject(blocked(`the endpoint URL ${why}`));
        const secure = target.protocol === 'https:';
        const port = target.port ? Number(target.port) : secure ? 443 : 80;
        const request = (secure ? https : http).request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
            agent: agents[policy.mode][secure ? 'https' : 'http'],
            lookup: guardedLookup(policy, port),
          },
          (res) => {
            const statusCode = res.statusCode ?? 0;
            const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null;
            const responseHeaders = allowedHeadersJson(res.headers);
            void readExcerpt(res, RESPONSE_EXCERPT_BYTES).then((excerpt) => {
              done();
              resolve({ statusCode, retryAfter, responseHeaders, excerpt });
            });
          },
        );
        // One timer per attempt, no AbortController: destroying the request ends the wait for
        // the answer or, once it started, the excerpt (readExcerpt keeps what came).
        const timer = setTimeout(() => request.destroy(named('TimeoutError', `timed out after ${timeoutMs} ms`)), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          live.delete(request);
        };
        live.add(request);
        request.on('error', (err) => {
          done();
          reject(err);
        });
        request.end(body);
      });
    },
    abortAll() {
      for (const request of live) request.destroy(named('AbortError', 'server shutting down'));
    },
    close() {
      for (const mode of Object.values(agents)) {
        mode.http.destroy();
        mode.https.destroy();
      }
    },
  };
}

/** A readable cause for a failed attempt: timeout, refused, reset, DNS, refused by the URL rules, … */
export function describeAttemptError(err: unknown, timeoutMs: number): string {
  const r = err as { name?: string } | undefined;
  if (r?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (r?.name === 'AbortError') return 'aborted: server shutting down';
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (code === BLOCKED_CODE) return `refused: ${e.message}`;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    EPIPE: 'connection closed by the receiver',
    ENOTFOUND: 'DNS lookup failed',
    EAI_AGAIN: 'DNS lookup failed (temporary)',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'timed out connecting',
    ERR_TLS_CERT_ALTNAME_INVALID: "the receiver's TLS certificate does not match its name",
    DEPTH_ZERO_SELF_SIGNED_CERT: "the receiver's TLS certificate is self-signed",
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the receiver's TLS certificate could not be verified",
    CERT_HAS_EXPIRED: "the receiver's TLS certificate has expired",
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  const detail = e?.message ?? String(err);
  return code ? `${detail} (${code})` : detail;
}
