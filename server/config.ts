import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { LIST_TOTAL_CAP } from './lib/list-total';

const DEFAULT_RETRY_DELAYS_S = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** Bank-transfer instructions stay valid one hour by default (docs/lifecycle.md says why). */
export const DEFAULT_BANK_TRANSFER_WINDOW_S = 3600;
/** The default market's zone (Ghana: UTC+0 all year, no daylight saving). */
const DEFAULT_TIME_ZONE = 'Africa/Accra';

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function retentionDays(fallback: number, min: number) {
  const whole = { error: 'must be a whole number of days' };
  return z.coerce.number(whole).int(whole).min(min, { error: `must be at least ${min} days` }).max(36_500, { error: 'must be at most 36500 days' }).default(fallback);
}

const EnvSchema = z.object({
  PORT: z.coerce
    .number({ error: 'must be a TCP port number (0 picks a free one)' })
    .int({ error: 'must be a TCP port number (0 picks a free one)' })
    .min(0, { error: 'must be a TCP port number (0 picks a free one)' })
    .max(65535, { error: 'must be a TCP port number (0 picks a free one)' })
    .default(4610),
  HOST: z.string().min(1, { error: 'must be an address or host name to listen on' }).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./.paydesk'),
  PUBLIC_BASE_URL: z.url().optional(),
  WEBHOOK_RETRY_DELAYS_S: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, { error: 'must be a comma-separated list of whole seconds' })
    .optional(),
  RATE_LIMIT_PER_MIN: z.coerce.number().int().min(0).default(600),
  REPORT_SLOT_BYTES: z.coerce.number().int().min(16).max(1_048_576).optional(),
  ALLOWED_HOSTS: z
    .string()
    .regex(/^\s*\.?[A-Za-z0-9_.:[\]-]+(\s*,\s*\.?[A-Za-z0-9_.:[\]-]+)*\s*$/, { error: 'must be a comma-separated list of host names (a leading dot allows subdomains)' })
    .optional(),
  BANK_TRANSFER_WINDOW_S: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(60, { error: 'must be at least 60 seconds' })
    .max(604_800, { error: 'must be at most 604800 seconds (7 days)' })
    .default(DEFAULT_BANK_TRANSFER_WINDOW_S),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(?:ql)?:\/\/\S+$/, { error: 'must be a postgres:// (or postgresql://) connection URL; unset means SQLite in DATA_DIR' })
    .optional(),
  // The most connections an instance's (or a CLI run's) pool opens to PostgreSQL; its webhook
  // dispatcher and report worker open one more each.
  DATABASE_POOL_SIZE: z.coerce
    .number({ error: 'must be a whole number of connections' })
    .int({ error: 'must be a whole number of connections' })
    .min(1, { error: 'must be at least 1' })
    .max(200, { error: 'must be at most 200' })
    .default(10),
  TRUST_PROXY: z
    .string()
    .trim()
    .refine((v) => v === '' || parseTrustProxy(v) !== null, {
      error: 'must be a comma-separated list of the reverse proxies’ addresses or CIDRs (or loopback, linklocal, uniquelocal), not true or a hop count; unset trusts no proxy',
    })
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// (or rediss://) URL; unset means each instance counts its rate limits alone' })
    .optional(),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).regex(/^\S+$/, { error: 'must not contain spaces' }).default('paydesk:'),
  SHUTDOWN_DRAIN_MS: z.coerce
    .number({ error: 'must be a whole number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(0, { error: 'must be 0 or more' })
    .max(120_000, { error: 'must be at most 120000 (2 minutes)' })
    .default(0),
  // Retention (docs/operations.md): whole days; what is older is removed by `npm run admin -- db:prune`.
  IDEMPOTENCY_RETENTION_S: z.coerce.number({ error: 'must be a whole number of seconds' }).int({ error: 'must be a whole number of seconds' }).min(3600, { error: 'must be at least 3600 seconds' }).default(86_400),
  WEBHOOK_ATTEMPT_LOG_RETENTION_DAYS: retentionDays(90, 7),
  WEBHOOK_BODY_RETENTION_DAYS: retentionDays(30, 1),
  SESSION_HISTORY_RETENTION_DAYS: retentionDays(400, 30),
  AUDIT_RETENTION_DAYS: retentionDays(2557, 365),
  // Back-office lists count at most this many matching rows; past it `total_capped` is true (server/lib/list-total.ts).
  LIST_TOTAL_CAP: z.coerce
    .number({ error: 'must be a whole number of rows' })
    .int({ error: 'must be a whole number of rows' })
    .min(1, { error: 'must be at least 1' })
    .max(1_000_000, { error: 'must be at most 1000000' })
    .default(LIST_TOTAL_CAP),
  // Staff sign-ins unused this long are refused (server/modules/auth/staff-auth.ts); the page's own timer is only a convenience.
  STAFF_IDLE_TIMEOUT_S: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(60, { error: 'must be at least 60 seconds' })
    .max(43_200, { error: 'must be at most 43200 seconds (12 hours, the sign-in lifetime)' })
    .default(1800),
  // The whole request (headers and body) must arrive within this: 30 s holds a 1 MiB body to about 35 KB/s at least.
  REQUEST_TIMEOUT_S: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1 second' })
    .max(600, { error: 'must be at most 600 seconds' })
    .default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Prometheus metrics (docs/operations.md "Metrics"): `on` serves GET /metrics on the listening
  // port; METRICS_PORT serves them on a port of their own bound to 127.0.0.1 instead.
  METRICS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('off'),
  METRICS_PORT: z.coerce
    .number({ error: 'must be a TCP port number' })
    .int({ error: 'must be a TCP port number' })
    .min(0, { error: 'must be a TCP port number' })
    .max(65535, { error: 'must be a TCP port number' })
    .optional(),
  /** The instance's time zone, an IANA name: staff screens show it; every stored time and CSV stays UTC. Empty or unset: the default market's. */
  TZ: z
    .string()
    .optional()
    .transform((v) => (v ? v : DEFAULT_TIME_ZONE))
    .refine((v) => isTimeZone(v), { error: 'must be an IANA time zone name, like Africa/Accra or Africa/Abidjan' }),
  READY_MAX_BACKLOG_AGE_S: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1 second' })
    .optional(),
});

/** Names proxy-addr (Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: the reverse proxies' addresses or CIDRs.
 * `true` (trust every hop) is refused on purpose: anyone could then pick their own client IP
 * with X-Forwarded-For and escape the per-IP rate limits. A hop count is refused too: Fastify 5
 * cannot check who the immediate peer is with one, so it ignores the headers (fails closed) and
 * an operator who set `1` would silently get no forwarding at all.
 */
export function parseTrustProxy(raw: string): string[] | null {
  const entries = raw.split(',').map((e) => e.trim());
  return entries.length > 0 && entries.every(isAddressOrCidr) ? entries : null;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseFile: string;
  /** DATABASE_URL: a PostgreSQL database shared by every instance; null means SQLite at `databaseFile` (docs/deployment.md). */
  readonly databaseUrl: string | null;
  /** DATABASE_POOL_SIZE: the most PostgreSQL connections this instance's pool opens (10 by default); unused on SQLite. */
  readonly databasePoolSize: number;
  /** PUBLIC_BASE_URL without a trailing slash; null means `http://HOST:PORT` with the port actually bound. */
  readonly publicBaseUrl: string | null;
  readonly webhookRetryDelaysS: readonly number[];
  /** Requests per minute in each bucket (API key, payer IP, staff token, sign-in IP, failed authentications); 0 disables. */
  readonly rateLimitPerMin: number;
  /** REPORT_SLOT_BYTES: bytes per chunk an export passes from the report worker (report-protocol.ts SLOT_BYTES when unset). */
  readonly reportSlotBytes?: number | undefined;
  /**
   * Extra names the Host header may carry (ALLOWED_HOSTS), beside HOST, PUBLIC_BASE_URL's host,
   * loopback names and IP addresses; `.example.com` allows example.com and its subdomains.
   */
  readonly allowedHosts: readonly string[];
  readonly logLevel: string;
  /**
   * TRUST_PROXY: which reverse proxies may set X-Forwarded-For / -Proto / -Host (their addresses
   * or CIDRs); false (the default) ignores those headers and uses the socket address.
   */
  readonly trustProxy: false | readonly string[];
  /** REDIS_URL: the rate-limit counters shared by every instance; null means each instance counts alone (docs/operations.md). */
  readonly redisUrl: string | null;
  /** REDIS_KEY_PREFIX: prefix of every Redis key Paydesk writes, so deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  /** SHUTDOWN_DRAIN_MS: on SIGTERM/SIGINT, how long /readyz answers 503 before the server stops taking requests. */
  readonly shutdownDrainMs: number;
  /** TZ (IANA name, default Africa/Accra): the instance's zone, returned by GET /me and named on staff screens; stored times and CSVs are UTC. */
  readonly timeZone: string;
  /** How long bank-transfer instructions stay valid (the session is `pending` meanwhile); docs/lifecycle.md. */
  readonly bankTransferWindowS: number;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** How long an Idempotency-Key is remembered (IDEMPOTENCY_RETENTION_S). */
  readonly idempotencyRetentionSeconds: number;
  /** LIST_TOTAL_CAP: the most matching rows a back-office list counts; past it the list says `total_capped: true` (10,000 by default). */
  readonly listTotalCap: number;
  /** Days each kind of history is kept before `db:prune` removes it (docs/operations.md). */
  readonly retention: Retention;
  /** STAFF_IDLE_TIMEOUT_S: a staff sign-in with no call for this long is signed out by the server (30 minutes by default). */
  readonly staffIdleTimeoutS: number;
  /** REQUEST_TIMEOUT_S: a request whose headers and body have not all arrived by then is answered 408 and closed (slow senders). */
  readonly requestTimeoutS: number;
  /** Where `/metrics` is served: not at all (default), on the listening port (METRICS=on), or on METRICS_PORT at 127.0.0.1. */
  readonly metrics: { readonly onMainPort: boolean; readonly port: number | null };
  /** READY_MAX_BACKLOG_AGE_S: /readyz answers 503 while a webhook delivery has been due longer than this; null: never for that. */
  readonly readyMaxBacklogAgeS: number | null;
}

export interface Retention {
  /** Webhook attempt log rows of deliveries that are over (succeeded or failed). */
  readonly webhookAttemptLogDays: number;
  /** The body (event payload) of events delivered to every endpoint; the event row stays. */
  readonly webhookBodyDays: number;
  /** Session history rows (the session keeps its status and times). */
  readonly sessionHistoryDays: number;
  /** Audit entries: kept longest (finance), never under 365 days (the database refuses). */
  readonly auditDays: number;
}

const BODY_LIMIT_BYTES = 1_048_576;

/** Every bad variable of the environment, one `NAME: why` each (empty when it is valid). */
export function configProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  const parsed = EnvSchema.safeParse(env);
  if (parsed.success) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const issue of parsed.error.issues) {
    const name = issue.path.join('.');
    if (seen.has(name)) continue;
    seen.add(name);
    out.push(`${name}: ${issue.message}`);
  }
  return out;
}

/** Parses the environment once into a frozen config; throws naming every bad variable (one line). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) throw new Error(`invalid environment: ${configProblems(env).join('; ')}`);
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseFile: resolve(dataDir, 'paydesk.sqlite'),
    databaseUrl: e.DATABASE_URL ?? null,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    publicBaseUrl: e.PUBLIC_BASE_URL ? e.PUBLIC_BASE_URL.replace(/\/+$/, '') : null,
    webhookRetryDelaysS: e.WEBHOOK_RETRY_DELAYS_S
      ? e.WEBHOOK_RETRY_DELAYS_S.split(',').map((s) => Number(s.trim()))
      : DEFAULT_RETRY_DELAYS_S,
    rateLimitPerMin: e.RATE_LIMIT_PER_MIN,
    reportSlotBytes: e.REPORT_SLOT_BYTES,
    allowedHosts: e.ALLOWED_HOSTS ? e.ALLOWED_HOSTS.split(',').map((h) => h.trim().toLowerCase()) : [],
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY ? (parseTrustProxy(e.TRUST_PROXY) ?? false) : false,
    redisUrl: e.REDIS_URL ?? null,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    bankTransferWindowS: e.BANK_TRANSFER_WINDOW_S,
    timeZone: e.TZ,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    idempotencyRetentionSeconds: e.IDEMPOTENCY_RETENTION_S,
    listTotalCap: e.LIST_TOTAL_CAP,
    staffIdleTimeoutS: e.STAFF_IDLE_TIMEOUT_S,
    requestTimeoutS: e.REQUEST_TIMEOUT_S,
    retention: {
      webhookAttemptLogDays: e.WEBHOOK_ATTEMPT_LOG_RETENTION_DAYS,
      webhookBodyDays: e.WEBHOOK_BODY_RETENTION_DAYS,
      sessionHistoryDays: e.SESSION_HISTORY_RETENTION_DAYS,
      auditDays: e.AUDIT_RETENTION_DAYS,
    },
    metrics: { onMainPort: e.METRICS === 'on', port: e.METRICS_PORT ?? null },
    readyMaxBacklogAgeS: e.READY_MAX_BACKLOG_AGE_S ?? null,
    ...overrides,
  };
  return Object.freeze(config);
}
