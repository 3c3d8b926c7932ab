import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import { refusedAddress, refusedUrl, type UrlMode, type UrlPolicy } from './url-policy';

/**
 * One webhook POST over undici, connected only to addresses the URL policy allows.
 *
 * Why not fetch: the check must run on the address actually connected to, after DNS, so a
 * name that passed at save time and now resolves to 169.254.169.254 or to Paydesk itself
 * (DNS rebinding) is refused. The URL itself is checked before every attempt (IP-literal hosts
 * skip DNS); new connections are made by a connector whose `lookup` refuses forbidden answers
 * (`guardedLookup`), so the socket connects to an address that was checked. One undici Agent
 * (a keep-alive pool per origin, one request at a time per connection) per mode, so a
 * connection opened under the test rules is never reused for a live endpoint. Redirects are
 * not followed (a 3xx is an answer like any other).
 *
 * Why undici rather than node:http: about half the CPU per request, which is most of
 * what a delivery costs. The low-level `dispatch` API is used, with a handler object: no
 * response stream, no promise or AbortController per request.
 *
 * What is kept of the answer: the status, at most RESPONSE_EXCERPT_BYTES of the body, and
 * only the headers in RESPONSE_HEADER_ALLOWLIST: what a developer needs to see why a
 * delivery failed, not whatever an unexpected service sends back.
 */
export const RESPONSE_EXCERPT_BYTES = 1024;
const RESPONSE_HEADER_ALLOWLIST = ['content-type', 'content-length', 'date', 'server', 'retry-after', 'location', 'x-request-id'] as const;
const BLOCKED_CODE = 'EWEBHOOKBLOCKED';

interface PostResult {
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
/** How long a kept-alive connection may stay idle (less when the receiver's Keep-Alive says so). */
const KEEP_ALIVE_MS = 30_000;

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

/** Headers of which node:http keeps only the first value (the others it joins with ", "); kept the same here. */
const FIRST_VALUE_ONLY = new Set(['content-type', 'content-length', 'server', 'retry-after', 'location']);
const ALLOWED = new Set<string>(RESPONSE_HEADER_ALLOWLIST);
/** Lengths of the allow-listed names: a name of another length (connection, keep-alive, transfer-encoding) is skipped undecoded. */
const ALLOWED_LENGTHS = new Set<number>(RESPONSE_HEADER_ALLOWLIST.map((n) => n.length));

/** The allow-listed response headers (undici's raw name/value list) as a JSON object, and Retry-After. */
function allowedHeaders(raw: ReadonlyArray<Buffer | string>): { json: string; retryAfter: string | null } {
  const found: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!ALLOWED_LENGTHS.has(raw[i]!.length)) continue;
    const name = raw[i]!.toString('latin1').toLowerCase();
    if (!ALLOWED.has(name)) continue;
    const value = raw[i + 1]!.toString('latin1');
    const seen = found[name];
    if (seen === undefined) found[name] = value;
    else if (!FIRST_VALUE_ONLY.has(name)) found[name] = `${seen}, ${value}`;
  }
  const out: Record<string, string> = {};
  for (const name of RESPONSE_HEADER_ALLOWLIST) {
    const v = found[name];
    if (v !== undefined) out[name] = v.slice(0, 300);
  }
  return { json: JSON.stringify(out), retryAfter: found['retry-after'] ?? null };
}

/** At most `maxBytes` of a body as text; a longer or cut one ends (at a character boundary) with "…". */
function excerptOf(chunks: Buffer[], maxBytes: number, truncated: boolean): string | null {
  let text = Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
  if (truncated) text = `${text.replace(/\uFFFD+$/, '')}…`;
  return text.length > 0 ? text : null;
}

/**
 * One request's undici handler (the dispatch API's callbacks). Settles once: with the answer
 * (status, headers, excerpt), or with the error. An answer cut by the receiver (or longer than
 * the excerpt: the connection is then closed, not reused) keeps what came; a timeout or
 * shutdown rejects, even once the answer started.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private abortRequest: ((err?: Error) => void) | null = null;
  private cut: Error | null = null;
  private settled = false;
  private statusCode = 0;
  private headers: { json: string; retryAfter: string | null } | null = null;
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (r: PostResult) => void,
    private readonly reject: (err: unknown) => void,
    private readonly done: (a: Attempt) => void,
    timeoutMs: number,
  ) {
    // One timer per attempt, no AbortController: it covers connect, answer and excerpt.
    this.timer = setTimeout(() => this.stop(named('TimeoutError', `timed out after ${timeoutMs} ms`)), timeoutMs);
  }

  /** Timeout or shutdown: rejects now; the request is cut now, or as soon as undici hands it a connection. */
  stop(err: Error): void {
    if (this.settled) return;
    this.cut = err;
    this.fail(err);
    this.abortRequest?.(err);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cut) return abort(this.cut);
    this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.statusCode = statusCode;
    this.headers = allowedHeaders(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    const room = RESPONSE_EXCERPT_BYTES - this.size;
    // undici's chunk may be a view of a buffer it reuses: keep a copy of what is wanted.
    if (room > 0) this.chunks.push(Buffer.from(chunk.subarray(0, room)));
    this.size += chunk.length;
    if (this.size > RESPONSE_EXCERPT_BYTES) {
      this.answer(true);
      this.abortRequest?.(); // the rest is not wanted; the connection is closed, not reused
    }
    return true;
  }

  onComplete(): void {
    this.answer(false);
  }

  onError(err: Error): void {
    if (this.headers && !this.cut) this.answer(true); // cut by the receiver mid-answer: keep what came
    else this.fail(err);
  }

  private answer(truncated: boolean): void {
    if (this.settled) return;
    this.finish();
    this.resolve({ statusCode: this.statusCode, retryAfter: this.headers!.retryAfter, responseHeaders: this.headers!.json, excerpt: excerptOf(this.chunks, RESPONSE_EXCERPT_BYTES, truncated) });
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.finish();
    this.reject(err);
  }

  private finish(): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.done(this);
  }
}

export function createWebhookHttpClient(): WebhookHttpClient {
  // The rules the connectors check resolved addresses against: those of the latest attempt of
  // that mode (Paydesk's own addresses can change once the listener is bound).
  const policies: Record<UrlMode, UrlPolicy> = { test: { mode: 'test', own: [] }, live: { mode: 'live', own: [] } };
  // Connect timeout: the attempt's own (its timer, started earlier, fires first and rejects).
  let connectTimeoutMs = 10_000;
  const connectors = new Map<string, buildConnector.connector>();
  /** Connects only where `guardedLookup` allows, under the mode's current rules (one undici connector per mode, port and timeout). */
  const connectorFor =
    (mode: UrlMode): buildConnector.connector =>
    (opts, callback) => {
      const port = opts.port ? Number(opts.port) : opts.protocol === 'https:' ? 443 : 80;
      const timeout = connectTimeoutMs;
      const key = `${mode}:${port}:${timeout}`;
      let connect = connectors.get(key);
      if (!connect) {
        const lookup: LookupFunction = (hostname, options, cb) => guardedLookup(policies[mode], port)(hostname, options, cb);
        connect = undici!.buildConnector({ lookup, timeout } as buildConnector.BuildOptions);
        connectors.set(key, connect);
      }
      return connect(opts, callback);
    };
  // undici is loaded with the first delivery, not at start: its ~25 modules were ~25 ms of every
  // cold start, for an instance that may deliver nothing for a while.
  let undici: typeof import('undici') | undefined;
  let loading: Promise<typeof import('undici')> | undefined;
  let agents: Record<UrlMode, Agent> | undefined;
  const agentsOf = (u: typeof import('undici')): Record<UrlMode, Agent> => {
    const agentFor = (mode: UrlMode) => new u.Agent({ connect: connectorFor(mode), pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
    return (agents ??= { test: agentFor('test'), live: agentFor('live') });
  };
  const live = new Set<Attempt>();
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
  const done = (a: Attempt) => live.delete(a);
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
        policies[policy.mode] = policy;
        connectTimeoutMs = timeoutMs;
        const attempt = new Attempt(resolve, reject, done, timeoutMs);
        live.add(attempt);
        // Our timer bounds the whole attempt: undici's own header and body timeouts are off.
        // An attempt stopped while undici loaded is cut at onConnect. A dispatch that throws
        // (a header undici refuses) fails this attempt, never the process.
        const send = (u: typeof import('undici')) => {
          try {
            agentsOf(u)[policy.mode].dispatch({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body, headersTimeout: 0, bodyTimeout: 0 }, attempt);
          } catch (err) {
            attempt.stop(err as Error);
          }
        };
        if (undici) return send(undici);
        loading ??= import('undici').then((u) => (undici = u));
        loading.then(send, (err: unknown) => attempt.stop(err as Error));
      });
    },
    abortAll() {
      for (const attempt of [...live]) attempt.stop(named('AbortError', 'server shutting down'));
    },
    close() {
      for (const agent of Object.values(agents ?? {})) void agent.destroy().catch(() => {});
    },
  };
}

/** A readable cause for a failed attempt: timeout, refused, reset, DNS, refused by the URL rules, … */
export function describeAttemptError(err: unknown, timeoutMs: number): string {
  const r = err as { name?: string } | undefined;
  if (r?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (r?.name === 'AbortError') return 'aborted: server shutting down';
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  // undici's "other side closed" is what node:http called a reset ("socket hang up", ECONNRESET).
  const code = e?.code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : (e?.code ?? e?.cause?.code);
  if (code === BLOCKED_CODE) return `refused: ${e.message}`;
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the receiver',
    EPIPE: 'connection closed by the receiver',
    UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
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
