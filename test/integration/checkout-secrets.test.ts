import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../server/app';
import { loadConfig } from '../../server/config';
import { migrate, type OpenedDatabase } from '../../server/db/database';
import { ManualClock } from '../../server/lib/clock';
import { randomIds, type IdGenerator } from '../../server/lib/ids';
import { createIntegration, type CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { post } from '../support/http';
import { sessionUrl, uniqueInvoice } from '../support/checkout';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { storedBytes } from '../support/stored-data';

/**
 * A card number or security code is never written to the database, a
 * log, an error message or a webhook; the full Mobile Money number never leaves the server and
 * is stored in exactly one place (payment_attempts.phone, which the provider needs to send and
 * resend the prompt).
 *
 * The app here is the real one with a real pino logger at `trace` writing to a file, and the
 * database a real SQLite file in WAL mode (the bytes of its files are searched) or, in the
 * postgres project, a PostgreSQL database (every row of every table is searched as text). The id generator is the production one, except that
 * it re-draws an id that happens to contain the CVC digits, so a match in the files can only be
 * a leak, never a coincidence.
 */
const CARDS = ['4242424242424242', '5555555555554444', '4000000000000002', '4000000000009995', '4111111111111111', '4242424242424241'];
const CVC_CANDIDATES = ['7319', '8462', '5937', '6184', '3857', '9416'];
const PHONE_LOCAL = '0245550199';
const PHONE_DIGITS = '245550199';

describe('card data and phone numbers never leak (database files, logs, responses)', () => {
  let dir: string;
  let testDb: TestDatabase;
  let database: OpenedDatabase;
  let app: FastifyInstance;
  let m: CreatedIntegration;
  let logFile: string;
  let cvc = '';
  let sessionOfQuery = '';
  const responses: string[] = [];
  const forbidden: string[] = [...CARDS];

  // Time-ordered ids carry the clock's time, which a re-draw does not change: a clock time whose
  // digits hold a candidate fails here rather than re-drawing forever.
  const clean = (draw: () => string, cards: boolean) => {
    for (let tries = 0; tries < 1000; tries++) {
      const id = draw();
      if (!(cards && forbidden.some((f) => id.includes(f))) && !CVC_CANDIDATES.some((c) => id.includes(c))) return id;
    }
    throw new Error('ids keep containing a CVC candidate: the clock time is part of time-ordered ids; pick another');
  };
  const ids: IdGenerator = {
    uuid: () => clean(() => randomIds.uuid(), true),
    token: (prefix, length) => clean(() => randomIds.token(prefix, length), false),
    timeToken: (prefix, length, now) => clean(() => randomIds.timeToken(prefix, length, now), false),
    timeUuid: (now) => clean(() => randomIds.timeUuid(now), true),
  };

  const dbFiles = () => [database.sqlite.name, `${database.sqlite.name}-wal`, `${database.sqlite.name}-shm`].filter((f) => existsSync(f));
  const dbBytes = async () => (onPostgres ? (await storedBytes(database))[0]! : Buffer.concat(dbFiles().map((f) => readFileSync(f))));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-secrets-'));
    logFile = join(dir, 'server.log');
    testDb = await createTestDatabase(dir);
    const config = loadConfig({ DATA_DIR: dir, RATE_LIMIT_PER_MIN: '0', PUBLIC_BASE_URL: 'http://paydesk.test', ...(testDb.url ? { DATABASE_URL: testDb.url } : {}) });
    database = testDb.opened;
    await migrate(database.db);
    // A clock whose timestamps hold no 4-digit run but the year.
    const clock = new ManualClock('2031-03-05T10:20:30.000Z');
    // Same settings as the production logger (server/runtime.ts createLogger), at the most verbose level.
    const logger = pino({ level: 'trace', redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true } }, pino.destination({ dest: logFile, sync: true }));
    app = await build({ db: database.db, clock, ids, config, logger });
    await app.ready();
    m = await createIntegration(database.db, clock, ids, { merchantName: 'Secrets Merchant' });
    // Pick a CVC that appears nowhere in the files yet, so a later match is a leak.
    const before = (await dbBytes()).toString('latin1');
    cvc = CVC_CANDIDATES.find((c) => !before.includes(c)) ?? '';
    expect(cvc).not.toBe('');
    for (const card of CARDS) expect(before).not.toContain(card);
  });
  afterAll(async () => {
    await app.close();
    await testDb.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newSession(amount = 10_000): Promise<string> {
    const res = await post(app, '/api/v1/sessions', { amount_minor: amount, invoice_ref: uniqueInvoice('SEC') }, { key: m.api_key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function card(sessionId: string, body: Record<string, unknown>, encoding: 'json' | 'urlencoded' | 'multipart' = 'json') {
    const res = await post(app, `${sessionUrl(sessionId)}/card-payments`, { amount_minor: 10_000, expiry_month: 11, expiry_year: 2099, cvc, ...body }, { encoding });
    responses.push(res.body);
    return res;
  }

  it('runs card payments of every kind, good and bad, through every encoding', async () => {
    const a = await newSession();
    expect((await card(a, { card_number: '4000000000000002' })).json().status).toBe('declined');
    expect((await card(a, { card_number: '4000000000009995' }, 'urlencoded')).json().status).toBe('declined');
    expect((await card(a, { card_number: '4111111111111111' })).statusCode).toBe(400); // not a test card
    expect((await card(a, { card_number: '4242424242424241' }, 'multipart')).statusCode).toBe(400); // Luhn
    expect((await card(a, { card_number: '4242424242424242', expiry_month: 14 })).statusCode).toBe(400);
    expect((await card(a, { card_number: '4242424242424242', cvc: `${cvc}9` })).statusCode).toBe(400);
    expect((await card(a, { card_number: '4242424242424242', amount_minor: 1 })).statusCode).toBe(409);
    // Malformed JSON that carries the number: the parser's own message would quote it.
    const broken = await app.inject({
      method: 'POST',
      url: `${sessionUrl(a)}/card-payments`,
      headers: { 'content-type': 'application/json' },
      payload: `{"amount_minor":10000,"card_number":"4242424242424242","cvc":"${cvc}",`,
    });
    expect(broken.statusCode).toBe(400);
    responses.push(broken.body);
    // The number in the query string is not where it belongs, but must not be logged either.
    sessionOfQuery = a;
    const query = await app.inject({ method: 'GET', url: `${sessionUrl(a)}?card_number=4242424242424242&cvc=${cvc}` });
    responses.push(query.body);
    expect((await card(a, { card_number: '4242 4242 4242 4242' })).json()).toMatchObject({ status: 'succeeded', last4: '4242', brand: 'visa' });
    // Paid: a further card is refused before it is looked at.
    expect((await card(a, { card_number: '5555555555554444' })).statusCode).toBe(409);
    const b = await newSession();
    expect((await card(b, { card_number: '5555-5555-5555-4444' }, 'multipart')).json()).toMatchObject({ status: 'succeeded', last4: '4444' });

    // A Mobile Money payment with a known phone number.
    const c = await newSession();
    const started = await post(app, `${sessionUrl(c)}/provider-attempts`, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: PHONE_LOCAL });
    expect(started.statusCode, started.body).toBe(201);
    responses.push(started.body);
    const again = await post(app, `${sessionUrl(c)}/provider-attempts`, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: `233${PHONE_DIGITS}` }, { encoding: 'urlencoded' });
    responses.push(again.body);
    const bad = await post(app, `${sessionUrl(c)}/provider-attempts`, { rail: 'momo', amount_minor: 10_100, operator: 'mtn', phone: `${PHONE_LOCAL}99` });
    expect(bad.statusCode).toBe(400);
    responses.push(bad.body);
    const ref = started.json().attempt_reference;
    responses.push((await app.inject({ method: 'GET', url: sessionUrl(c) })).body);
    responses.push((await post(app, `${sessionUrl(c)}/provider-attempts/${ref}/authorize`, { code: '123456' })).body);
    responses.push((await app.inject({ method: 'GET', url: `${sessionUrl(c)}/provider-attempts/${ref}?refresh=1` })).body);
    responses.push((await app.inject({ method: 'GET', url: `/api/v1/sessions/${c}`, headers: { authorization: `Bearer ${m.api_key}` } })).body);
  });

  it('no response body carries a card number, the CVC or the full phone number', () => {
    const all = responses.join('\n');
    for (const n of CARDS) expect(all).not.toContain(n);
    expect(all).not.toMatch(new RegExp(`(?<!\\d)${cvc}(?!\\d)`));
    expect(all).not.toContain(PHONE_DIGITS);
    expect(all).toContain('"phone_last4":"0199"');
  });

  it('the database (SQLite: main, -wal, -shm files; PostgreSQL: every row) holds no card number and no CVC, while still holding the payments', async () => {
    // The WAL is where a fresh write sits first: it must be among the files searched.
    if (!onPostgres) expect(dbFiles().some((f) => f.endsWith('-wal'))).toBe(true);
    const bytes = await dbBytes();
    for (const n of CARDS) {
      expect(bytes.includes(Buffer.from(n)), `card number ${n} found in the database files`).toBe(false);
      expect(bytes.includes(Buffer.from(n, 'utf16le'))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(cvc)), `CVC ${cvc} found in the database files`).toBe(false);
    // Sanity: the files are the live database (the payments' own data is found in them).
    const paid = await database.db.selectFrom('payment_attempts').select(['id', 'card_last4', 'card_brand']).where('rail', '=', 'card').where('status', '=', 'succeeded').execute();
    expect(paid.map((p) => p.card_last4).sort()).toEqual(['4242', '4444']);
    expect(bytes.includes(Buffer.from(paid[0]!.id))).toBe(true);
  });

  it('the full phone number is stored only in payment_attempts.phone (never in events, history or any other column)', async () => {
    const tables = onPostgres
      ? await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(database.db)
      : await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(database.db);
    expect(tables.rows.length).toBeGreaterThan(20);
    const holders: string[] = [];
    for (const { name } of tables.rows) {
      const cols = onPostgres
        ? await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${name}`.execute(database.db)
        : await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(database.db);
      for (const col of cols.rows) {
        const hit = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(name)} WHERE CAST(${sql.ref(col.name)} AS TEXT) LIKE ${`%${PHONE_DIGITS}%`}`.execute(database.db);
        if (Number(hit.rows[0]?.n) > 0) holders.push(`${name}.${col.name}`);
      }
    }
    expect(holders).toEqual(['payment_attempts.phone']);
    const row = await database.db.selectFrom('payment_attempts').select(['phone', 'phone_last4']).where('phone', 'is not', null).executeTakeFirstOrThrow();
    expect(row).toEqual({ phone: `+233${PHONE_DIGITS}`, phone_last4: '0199' }); // E.164
  });

  it('the trace-level log has every request and no card number, CVC or full phone number', () => {
    const log = readFileSync(logFile, 'utf8');
    const lines = log.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.msg === 'request completed').length).toBeGreaterThanOrEqual(responses.length);
    expect(lines.some((l) => (l.req as { url?: string } | undefined)?.url?.includes('/card-payments'))).toBe(true);
    for (const n of CARDS) expect(log.split('\n').filter((l) => l.includes(n))).toEqual([]);
    // Query values the API does not define are logged by name only; its own (refresh=1) in full.
    const urls = lines.map((l) => (l.req as { url?: string } | undefined)?.url ?? '');
    // The session id in the path is a capability: logged as its prefix and last four characters.
    expect(urls).toContain(`/api/v1/checkout/sessions/cs_test_***${sessionOfQuery.slice(-4)}?card_number=[redacted]&cvc=[redacted]`);
    expect(log).not.toContain(sessionOfQuery);
    expect(urls.some((u) => u.endsWith('?refresh=1'))).toBe(true);
    expect(log).not.toMatch(new RegExp(`(?<!\\d)${cvc}(?!\\d)`));
    expect(log).not.toContain(PHONE_DIGITS);
  });
});
