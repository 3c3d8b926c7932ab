import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, withDatabase, type TestServer } from '../support/postgres-cluster';
import { spawnServer, type Child } from '../support/processes';
import { connectDatabase, migrate, openDatabase } from '../../server/db/database';
import { copyDesk } from '../../server/db/copy/copy';
import { verifyCopy, type VerifyReport } from '../../server/db/copy/verify';
import { randomIds } from '../../server/lib/ids';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { BO, call, PASSWORD, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { openSession, payByCard, uniqueInvoice } from '../support/checkout';
import { runAdmin, type CliResult } from '../support/cli';
import { post } from '../support/http';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { testDispatcher } from '../support/webhooks';

/**
 * Moving a desk to a central server: a desk's SQLite database, filled through the merchant API
 * and the back office (a row in every table, a held webhook delivery and a rejected deposit among
 * them), copied by `db:copy` into a fresh PostgreSQL database while the desk is still open, is
 * what a server started on that database serves: every session, the same API keys and staff
 * passwords, the same exceptions and CSV exports; `--verify` finds it equal, and a copy
 * interrupted midway and resumed ends the same.
 *
 * Both engines at once, so it runs in the `sqlite` project only (vitest.config.ts), with a
 * PostgreSQL server of its own finding (test/support/postgres-cluster.ts: the machine's, or a throwaway
 * cluster); without one it is skipped, saying why.
 */

let server: TestServer | undefined;
let unavailable = '';
let admin: pg.Client | undefined;
const made: string[] = [];

let t: TestContext;
let receiver: LocalReceiver;
let m: CreatedIntegration;
let m2: CreatedIntegration;
let boss: Staff;
let fin: Staff;
let sup: Staff;
let teller: Staff;
let urlA = '';
let urlB = '';

async function newDatabase(): Promise<string> {
  const name = `paydesk_copy_${process.pid}_${made.length}_${Math.random().toString(36).slice(2, 8)}`;
  await admin!.query(`CREATE DATABASE ${name}`);
  made.push(name);
  return withDatabase(server!.url, name);
}

const copy = (args: string[]): Promise<CliResult> => runAdmin(t.dataDir, ['db:copy', ...args]);
const json = <T>(r: CliResult): T => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};

interface CopyJson {
  resumed: boolean;
  tables: Array<{ table: string; total: number; rows: number; state: string }>;
  skipped: Array<{ table: string }>;
  sequences: Array<{ table: string; column: string; next: string }>;
}

let verifiedA: VerifyReport;
const deskFile = () => join(t.dataDir, 'paydesk.sqlite');
/** The command's own functions, in this process (the CLI around them is run above). */
const options = () => ({ sourceFile: deskFile(), targetUrl: '', resume: false, batchSize: 1000, progress: () => undefined });

async function fill(): Promise<void> {
  receiver = await startLocalReceiver();
  m = await t.merchant('Copy Desk Water', receiver.url);
  m2 = await t.merchant('Copy Desk Power');
  const branchId = (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id;
  boss = await staff(t, 'admin');
  sup = await staff(t, 'supervisor');
  teller = await staff(t, 'teller', { branchId });
  fin = await staff(t, 'finance', { merchantId: m.merchant_id });
  // A failed sign-in (kept for throttling) and an admin's change, both audited.
  expect((await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username: teller.username, password: 'not the password' } })).statusCode).toBe(401);
  expect((await call(t, boss, 'POST', `/admin/integrations/${m.integration_id}/fee-rules`, { rail: 'card', percent_bps: 150, fixed_minor: 0, cap_minor: null, bearer: 'payer' })).statusCode).toBe(200);

  // Revenue lines and an invoice (under an Idempotency-Key) paid twice: a finance exception.
  expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'WATER', name: 'Water' }, { code: 'SEWER', name: 'Sewerage' }] }, { key: m.api_key })).statusCode).toBe(200);
  const ref = uniqueInvoice('COPY');
  const lines = await t.app.inject({
    method: 'POST',
    url: '/api/v1/invoice-lines',
    headers: { authorization: `Bearer ${m.api_key}`, 'idempotency-key': `copy-${randomIds.uuid()}` },
    payload: { invoice_ref: ref, currency: 'GHS', lines: [{ code: 'WATER', amount_minor: 6000 }, { code: 'SEWER', amount_minor: 4000 }] },
  });
  expect(lines.statusCode, lines.body).toBe(200);

  // Paid by card: an event and a delivery, sent once (an attempt row) while the endpoint is active.
  const first = await openSession(t, m, { invoice_ref: ref, amount_minor: 10_000, customer: { name: 'Ama Mensah' } });
  expect((await payByCard(t, first.id, '4242424242424242')).statusCode).toBe(201);
  // The back office's invoice list folds the pending summary deltas: summaries now, deltas again below.
  expect((await call(t, fin, 'GET', '/invoices')).statusCode).toBe(200);
  const dispatcher = testDispatcher(t);
  await dispatcher.start();
  await receiver.waitFor(1);
  await dispatcher.idle();
  await dispatcher.stop();
  // The endpoint disabled in the back office: the next payment's delivery is held.
  const endpoint = await t.database.db.selectFrom('webhook_endpoints').select('id').where('integration_id', '=', m.integration_id).executeTakeFirstOrThrow();
  expect((await call(t, boss, 'POST', `/webhooks/endpoints/${endpoint.id}/disable`, { reason: 'moving to the central server' })).statusCode).toBe(200);
  const again = await openSession(t, m, { invoice_ref: ref, amount_minor: 10_000, customer: { name: 'Kofi Boateng' } });
  expect((await payByCard(t, again.id, '4242424242424242')).statusCode).toBe(201);
  expect(await t.database.db.selectFrom('webhook_deliveries').select('held_at').where('session_id', '=', again.id).executeTakeFirstOrThrow()).toMatchObject({ held_at: expect.any(String) });
  // The invoice paid twice is a work item: finance marks it resolved with a note.
  const reviewed = await call(t, fin, 'POST', `/exception-items/${encodeURIComponent(ref)}/review`, { status: 'resolved', note: 'Refunded the second payment' });
  expect(reviewed.statusCode, reviewed.body).toBe(200);

  // Cash: a deposit recorded by the teller and rejected by the supervisor; then one approved.
  const slip = await sessionWithSlip(t, m, 12_345);
  const recorded = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor, note: 'one note torn' });
  expect(recorded.statusCode, recorded.body).toBe(201);
  const depositId = (recorded.json() as { deposit: { id: string } }).deposit.id;
  expect((await call(t, sup, 'POST', `/deposits/${depositId}/reject`, { reason: 'Counterfeit note in bundle' })).statusCode).toBe(200);
  const paidCash = await sessionWithSlip(t, m2, 5_000);
  const second = await call(t, teller, 'POST', `/cash-slips/${paidCash.slip_token}/deposits`, { amount_minor: paidCash.amount_minor });
  expect(second.statusCode, second.body).toBe(201);
  expect((await call(t, sup, 'POST', `/deposits/${(second.json() as { deposit: { id: string } }).deposit.id}/approve`)).statusCode).toBe(200);
  // The teller's cash-up of the day, counted, signed and signed off.
  expect((await call(t, teller, 'POST', '/cash-desk/cash-up/float', { currency: 'GHS', amount_minor: 20_000 })).statusCode).toBe(200);
  expect((await call(t, teller, 'POST', '/cash-desk/cash-up/count', { currency: 'GHS', denominations: { note_10000: 2, note_5000: 1 } })).statusCode).toBe(200);
  const cashUp = await call(t, teller, 'POST', '/cash-desk/cash-up/sign', { currency: 'GHS' });
  expect(cashUp.statusCode, cashUp.body).toBe(200);
  expect((await call(t, sup, 'POST', `/cash-ups/${(cashUp.json() as { cash_up: { id: string } }).cash_up.id}/sign-off`, { note: 'short, explained' })).statusCode).toBe(200);
  // A Mobile Money session left open, and one of the other merchant.
  await openSession(t, m, { customer: { name: 'Yaw Mensah' } });
  await openSession(t, m2);
  // The audit trail's prune mark (db:prune writes one once entries are past the retention).
  await t.database.db
    .insertInto('audit_prune_marks')
    .values({ id: randomIds.uuid(), cutoff: new Date(Date.now() - 3000 * 86_400_000).toISOString(), recorded_at: new Date().toISOString(), reason: 'retention' })
    .execute();
  // The first-run setup link that made the first administrator: hashed, used.
  await t.database.db
    .insertInto('setup_links')
    .values({ id: randomIds.uuid(), token_hash: 'a'.repeat(64), created_at: new Date().toISOString(), expires_at: new Date(Date.now() + 1_800_000).toISOString(), used_at: new Date().toISOString() })
    .execute();
}

beforeAll(async () => {
  try {
    server = await startTestServer();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  } catch (err) {
    unavailable = `no PostgreSQL server for the copy's target: ${(err as Error).message.split('\n')[0]}`;
    return;
  }
  t = await createTestApp();
  await fill();
  urlA = await newDatabase();
  urlB = await newDatabase();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await t?.close();
  for (const name of made) await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await admin?.end();
  await server?.stop();
});

describe('db:copy: a desk to a central PostgreSQL server', { timeout: 120_000 }, () => {
  it('copies every table while the desk is open, --verify finds it equal, and a second source is refused', async (ctx) => {
    if (unavailable) {
      console.warn(`skipped: ${unavailable}`);
      ctx.skip();
    }
    const report = json<CopyJson>(await copy(['--to', urlA, '--json']));
    expect(report.tables.filter((x) => x.total === 0).map((x) => x.table)).toEqual([]);
    for (const x of report.tables) expect(x, x.table).toMatchObject({ rows: x.total, state: 'copied' });
    expect(report.tables.length).toBeGreaterThan(20);
    expect(report.skipped.map((x) => x.table)).toContain('checkout_sessions_search');
    // Dependency order: a table after those its foreign keys name.
    const order = report.tables.map((x) => x.table);
    expect(order.indexOf('merchants')).toBeLessThan(order.indexOf('checkout_sessions'));
    expect(order.indexOf('webhook_deliveries')).toBeLessThan(order.indexOf('webhook_delivery_attempts'));
    // Identity values past the copied rows: the next insert takes a new number.
    expect(report.sequences).toContainEqual(expect.objectContaining({ table: 'webhook_delivery_attempts', column: 'seq' }));

    const verify = await copy(['--to', urlA, '--verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/verified: \d+ tables equal/);
    verifiedA = await verifyCopy({ sourceFile: deskFile(), targetUrl: urlA, progress: () => undefined });
    expect(verifiedA.equal).toBe(true);

    // The target now holds a desk: a second desk's file (or this one again) is refused, nothing written.
    const other = mkdtempSync(join(tmpdir(), 'paydesk-desk2-'));
    try {
      const desk2 = openDatabase(join(other, 'paydesk.sqlite'));
      await migrate(desk2.db);
      desk2.sqlite.prepare('INSERT INTO merchants (id, name, created_at) VALUES (?, ?, ?)').run('m_desk2', 'Copy Desk Water', new Date().toISOString());
      await desk2.close();
      await expect(copyDesk({ ...options(), sourceFile: join(other, 'paydesk.sqlite'), targetUrl: urlA })).rejects.toThrow(/already holds Paydesk rows/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    await expect(copyDesk({ ...options(), targetUrl: urlA })).rejects.toThrow(/already holds Paydesk rows/);
    expect((await verifyCopy({ sourceFile: deskFile(), targetUrl: urlA, progress: () => undefined })).tables).toEqual(verifiedA.tables);
  });

  it('a copy interrupted midway is refused without --resume, and resumed gives the same result', async (ctx) => {
    if (unavailable) ctx.skip();
    // The desk's file and its WAL, byte for byte: the copies read them and never write them.
    const deskBytes = () => createHash('sha256').update(Buffer.concat([deskFile(), `${deskFile()}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)))).digest('hex');
    const before = deskBytes();
    // The target fails inserts into session_history once it holds 2 rows: a copy in batches of 2
    // stops after that table's first batch, with the tables before it done.
    const target = connectDatabase({ databaseUrl: urlB, databaseFile: '' });
    try {
      await migrate(target.db);
      await sql`CREATE FUNCTION copy_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF (SELECT count(*) FROM session_history) >= 2 THEN RAISE EXCEPTION 'disk full'; END IF; RETURN NEW; END $$`.execute(target.db);
      await sql`CREATE TRIGGER copy_fault BEFORE INSERT ON session_history FOR EACH ROW EXECUTE FUNCTION copy_fault()`.execute(target.db);
      await expect(copyDesk({ ...options(), targetUrl: urlB, batchSize: 2 })).rejects.toThrow(/session_history \(after 2 of \d+ rows\).*disk full/);
      const partial = await copy(['--to', urlB, '--verify']);
      expect(partial.code).toBe(1);
      expect(partial.stdout).toMatch(/interrupted copy/);
      await sql`DROP TRIGGER copy_fault ON session_history`.execute(target.db);
    } finally {
      await target.close();
    }

    await expect(copyDesk({ ...options(), targetUrl: urlB })).rejects.toThrow(/interrupted copy .*--resume/);
    const resumed = await copyDesk({ ...options(), targetUrl: urlB, resume: true });
    expect(resumed.resumed).toBe(true);
    expect(resumed.tables.find((x) => x.table === 'merchants')).toMatchObject({ state: 'already copied' });
    expect(resumed.tables.find((x) => x.table === 'session_history')).toMatchObject({ state: 'copied' });
    const checks = await verifyCopy({ sourceFile: deskFile(), targetUrl: urlB, progress: () => undefined });
    expect(checks.equal).toBe(true);
    // The same rows as the uninterrupted copy, table by table (the desk has not changed since).
    expect(checks.tables).toEqual(verifiedA.tables);

    expect(deskBytes()).toBe(before);

    // One value changed in the target is a difference, though every count still matches.
    const client = new pg.Client({ connectionString: urlB });
    await client.connect();
    try {
      await client.query(`UPDATE checkout_sessions SET amount_minor = amount_minor + 1 WHERE id = (SELECT min(id) FROM checkout_sessions)`);
    } finally {
      await client.end();
    }
    const changed = await verifyCopy({ sourceFile: deskFile(), targetUrl: urlB, progress: () => undefined });
    expect(changed.differences).toEqual(['checkout_sessions: the same ' + checks.tables.find((x) => x.table === 'checkout_sessions')!.source_rows + ' rows in number, but their values differ']);
  });
  it('a table a later migration adds is copied too, each value converted for its PostgreSQL type', async (ctx) => {
    if (unavailable) ctx.skip();
    // Not a Paydesk table: one this code has never heard of, in both databases, with the column
    // types PostgreSQL has and SQLite stores otherwise (0/1, text, blobs, 64-bit integers).
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-desk3-'));
    const urlC = await newDatabase();
    const target = connectDatabase({ databaseUrl: urlC, databaseFile: '' });
    try {
      const desk = openDatabase(join(dir, 'paydesk.sqlite'));
      await migrate(desk.db);
      desk.sqlite.exec(`CREATE TABLE later_kinds (id TEXT PRIMARY KEY, flag INTEGER, big INTEGER, doc TEXT, at TEXT, raw BLOB, ratio REAL, exact TEXT, note TEXT) STRICT`);
      const row = desk.sqlite.prepare('INSERT INTO later_kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').safeIntegers(true);
      row.run('a', 1n, 9_007_199_254_740_993n, '{"b": 1, "a": [true, null]}', '2026-11-29T03:04:05.123456Z', Buffer.from([0, 255, 16]), 0.1, '12.50', 'Ama Mensah');
      row.run('b', 0n, -5n, '[]', '2026-11-29T05:04:05.1+02:00', null, null, null, null);
      // And one with no key at all: a resumed copy cannot tell its rows already there.
      desk.sqlite.exec(`CREATE TABLE later_log (line TEXT NOT NULL); INSERT INTO later_log VALUES ('one'), ('two'), ('three')`);
      await desk.close();
      await migrate(target.db);
      await sql`CREATE TABLE later_kinds (id text PRIMARY KEY, flag boolean, big bigint, doc jsonb, at timestamptz, raw bytea, ratio double precision, exact numeric(10, 3), note text)`.execute(target.db);
      await sql`CREATE TABLE later_log (line text NOT NULL)`.execute(target.db);
      // Interrupted after later_log's first row (batches of 1), then resumed.
      await sql`CREATE FUNCTION log_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF (SELECT count(*) FROM later_log) >= 1 THEN RAISE EXCEPTION 'connection lost'; END IF; RETURN NEW; END $$`.execute(target.db);
      await sql`CREATE TRIGGER log_fault BEFORE INSERT ON later_log FOR EACH ROW EXECUTE FUNCTION log_fault()`.execute(target.db);
      const desk3 = { ...options(), sourceFile: join(dir, 'paydesk.sqlite'), targetUrl: urlC };
      await expect(copyDesk({ ...desk3, batchSize: 1 })).rejects.toThrow(/later_log \(after 1 of 3 rows\).*connection lost/);
      await sql`DROP TRIGGER log_fault ON later_log`.execute(target.db);
      const report = await copyDesk({ ...desk3, resume: true });
      expect(report.tables.find((x) => x.table === 'later_kinds')).toMatchObject({ rows: 2, state: 'already copied' });
      expect(report.tables.find((x) => x.table === 'later_log')).toMatchObject({ rows: 3, state: 'copied' });
      expect((await sql<{ line: string }>`SELECT line FROM later_log ORDER BY line`.execute(target.db)).rows.map((r) => r.line)).toEqual(['one', 'three', 'two']);
      const rows = await sql<Record<string, string | null>>`SELECT id, flag::text, big::text, doc::text, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at, encode(raw, 'hex') AS raw, ratio::text, exact::text, note FROM later_kinds ORDER BY id`.execute(target.db);
      expect(rows.rows).toEqual([
        { id: 'a', flag: 'true', big: '9007199254740993', doc: '{"a": [true, null], "b": 1}', at: '2026-11-29T03:04:05.123456', raw: '00ff10', ratio: '0.1', exact: '12.500', note: 'Ama Mensah' },
        { id: 'b', flag: 'false', big: '-5', doc: '[]', at: '2026-11-29T03:04:05.100000', raw: null, ratio: null, exact: null, note: null },
      ]);
      const checks = await verifyCopy({ sourceFile: join(dir, 'paydesk.sqlite'), targetUrl: urlC, progress: () => undefined });
      expect(checks.differences).toEqual([]);
      await sql`UPDATE later_kinds SET at = at + interval '1 microsecond' WHERE id = 'a'`.execute(target.db);
      expect((await verifyCopy({ sourceFile: join(dir, 'paydesk.sqlite'), targetUrl: urlC, progress: () => undefined })).differences).toEqual(['later_kinds: the same 2 rows in number, but their values differ']);
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server started on the copy serves every session, the same keys, passwords, exceptions and exports', async (ctx) => {
    if (unavailable) ctx.skip();
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-central-'));
    let central: Child | undefined;
    try {
      central = await spawnServer(dir, { DATABASE_URL: urlA, PUBLIC_BASE_URL: 'http://paydesk.test' });
      const there = (path: string, token: string, init: RequestInit = {}) => fetch(`${central!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

      const sessions = await t.database.db.selectFrom('checkout_sessions').select(['id', 'integration_id']).execute();
      expect(sessions.length).toBeGreaterThan(5);
      for (const s of sessions) {
        const key = s.integration_id === m.integration_id ? m.api_key : m2.api_key;
        const here = await t.app.inject({ method: 'GET', url: `/api/v1/sessions/${s.id}`, headers: { authorization: `Bearer ${key}` } });
        const res = await there(`/api/v1/sessions/${s.id}`, key);
        expect(res.status, s.id).toBe(200);
        expect(await res.json()).toEqual(here.json());
      }

      // The staff tokens signed in on the desk still work (their hashes were copied): the same
      // exceptions and exports, read before anyone signs in on the central server.
      const day = 86_400_000;
      const range = `from=${new Date(Date.now() - day).toISOString()}&to=${new Date(Date.now() + day).toISOString()}`;
      for (const [who, path] of [
        [fin, '/exceptions'],
        [fin, '/reports/exceptions.csv'],
        [fin, `/reports/payments.csv?${range}`],
        [fin, '/invoices'],
        [boss, '/audit/export.csv'],
        [boss, '/webhooks/deliveries?status=held'],
        [sup, '/deposits?status=rejected'],
      ] as const) {
        const here = await call(t, who, 'GET', path);
        expect(here.statusCode, `${path}: ${here.body}`).toBe(200);
        const res = await there(`${BO}${path}`, who.token);
        expect(res.status, path).toBe(200);
        expect(await res.text(), path).toBe(here.body);
      }
      const exceptions = (await call(t, fin, 'GET', '/exceptions')).json() as { total: number };
      expect(exceptions.total).toBeGreaterThan(0);
      expect((await call(t, boss, 'GET', '/webhooks/deliveries?status=held')).json()).toMatchObject({ deliveries: [expect.objectContaining({ status: 'held' })] });
      expect((await call(t, sup, 'GET', '/deposits?status=rejected')).json()).toMatchObject({ deposits: [expect.objectContaining({ status: 'rejected' })] });

      // The staff password is accepted, and a wrong one refused, as on the desk.
      const signIn = (password: string) => fetch(`${central!.url}${BO}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: boss.username, password }) });
      expect((await signIn(PASSWORD)).status).toBe(200);
      expect((await signIn('not the password')).status).toBe(401);
      // New rows take new numbers past the copied ones: a session appends an invoice-summary delta,
      // whose identity would collide with a copied one had its sequence not been set.
      const created = await there('/api/v1/sessions', m2.api_key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount_minor: 700, invoice_ref: uniqueInvoice('CENTRAL') }) });
      expect(created.status).toBe(201);
    } finally {
      await central?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

});

describe('db:copy refuses a desk database of another schema version', () => {
  for (const [what, change, refusal] of [
    ['newer', `INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_later_version', '2030-01-01T00:00:00.000Z')`, /newer than this build .*9999_from_a_later_version/],
    ['older', `DELETE FROM kysely_migration WHERE name = (SELECT max(name) FROM kysely_migration)`, /older than this build/],
  ] as const) {
    it(`a ${what} one, before touching the target`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'paydesk-desk-'));
      try {
        const desk = openDatabase(join(dir, 'paydesk.sqlite'));
        await migrate(desk.db);
        desk.sqlite.exec(change);
        await desk.close();
        // An unreachable target: the refusal comes first.
        await expect(copyDesk({ sourceFile: join(dir, 'paydesk.sqlite'), targetUrl: 'postgres://nobody@127.0.0.1:1/none', resume: false, batchSize: 1000, progress: () => undefined })).rejects.toThrow(refusal);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
