import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type OpenedDatabase } from '../../server/db/database';
import { CREDENTIAL_CACHE_TTL_MS } from '../../server/db/postgres';
import { LEASE_MARGIN_MS, ATTEMPT_TIMEOUT_MS } from '../../server/modules/webhooks/dispatcher';
import { createPostgresDatabase, onPostgres } from '../support/database';
import { dataDir, request, runAdmin, sleep, spawnServer, startReceiver, until, type Child, type Receiver } from '../support/drills';
import { budget } from '../support/pace';

/**
 * Two `npm run serve` instances on one PostgreSQL database: every race has one
 * winner across instances, staff tokens and key revocations hold everywhere, and a kill -9 of
 * one instance under load loses nothing acknowledged and delivers every terminal event
 * exactly once. PostgreSQL only: on SQLite one process owns the file.
 */
describe.skipIf(!onPostgres)('drill: two instances on one PostgreSQL', () => {
  let pg: { url: string; drop(): Promise<void> };
  let db: OpenedDatabase;
  const dirs: Array<ReturnType<typeof dataDir>> = [];
  const children: Child[] = [];
  const env = () => ({ DATABASE_URL: pg.url, WEBHOOK_RETRY_DELAYS_S: '1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1' });

  async function instance(): Promise<Child> {
    const d = dataDir('paydesk-multi-');
    dirs.push(d);
    const child = await spawnServer(d.dir, env());
    children.push(child);
    return child;
  }
  const admin = <T>(args: string[]) => runAdmin<T>(dirs[0]!.dir, args, env());

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    db = connectDatabase({ databaseUrl: pg.url, databaseFile: '' });
  });
  afterAll(async () => {
    for (const c of children) await c.kill9();
    await db?.close();
    await pg?.drop();
    for (const d of dirs) d.rm();
  });

  const completed = async (sessionId: string) =>
    (await db.db.selectFrom('events').select('id').where('session_id', '=', sessionId).where('type', '=', 'checkout.session.completed').execute()).length;

  async function signIn(base: string, username: string): Promise<string> {
    const res = await request(base, 'POST', '/api/backoffice/v1/auth/login', { body: { username, password: 'correct horse battery' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body as { token: string }).token;
  }
  const staffCall = (base: string, token: string, method: string, path: string, body?: unknown) =>
    request(base, method, `/api/backoffice/v1${path}`, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });

  async function session(base: string, key: string, invoice: string): Promise<string> {
    const s = await request(base, 'POST', '/api/v1/sessions', { key, body: { amount_minor: 5_000, invoice_ref: invoice } });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    return (s.body as { id: string }).id;
  }
  async function total(base: string, id: string, rail: string): Promise<number> {
    const q = await request(base, 'GET', `/api/v1/checkout/sessions/${id}/quote`);
    return (q.body as { surcharges: Record<string, { total_minor: number }> }).surcharges[rail]!.total_minor;
  }

  it('one winner in every race across the two instances; a staff token and a revocation hold on both', async () => {
    const [a, b, m] = await Promise.all([instance(), instance(), admin<{ api_key: string; integration_id: string }>(['integration:create', '--merchant', 'Two Instance Races'])]);

    // 30 creates with one Idempotency-Key, spread over both instances: one session.
    const invoice = `INV-MULTI-${Date.now()}`;
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        request(i % 2 ? a.url : b.url, 'POST', '/api/v1/sessions', { key: m.api_key, headers: { 'idempotency-key': invoice }, body: { amount_minor: 4_200, invoice_ref: invoice } }),
      ),
    );
    for (const r of replies) expect([201, 409], JSON.stringify(r.body)).toContain(r.status);
    const ids = new Set(replies.filter((r) => r.status === 201).map((r) => (r.body as { id: string }).id));
    expect(ids.size).toBe(1);
    expect(await db.db.selectFrom('checkout_sessions').select('id').where('invoice_ref', '=', invoice).execute()).toHaveLength(1);

    // Authorize one Mobile Money attempt on both instances at once: one approval, one event.
    const s1 = await session(a.url, m.api_key, `${invoice}-momo`);
    const attempt = await request(a.url, 'POST', `/api/v1/checkout/sessions/${s1}/provider-attempts`, {
      body: { rail: 'momo', amount_minor: await total(a.url, s1, 'momo'), operator: 'mtn', phone: '0241234567' },
    });
    expect(attempt.status).toBe(201);
    const ref = (attempt.body as { attempt_reference: string }).attempt_reference;
    const auth = await Promise.all([a, b].map((x) => request(x.url, 'POST', `/api/v1/checkout/sessions/${s1}/provider-attempts/${ref}/authorize`, { body: { code: '123456' } })));
    expect(auth.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await completed(s1)).toBe(1);

    // Two slips for one session, one on each instance: one payable slip.
    const s2 = await session(b.url, m.api_key, `${invoice}-cash`);
    const cash = await total(b.url, s2, 'cash');
    const slips = await Promise.all([a, b].map((x) => request(x.url, 'POST', '/api/v1/checkout/cash-slips', { body: { session_id: s2, amount_minor: cash } })));
    expect(slips.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(new Set(slips.map((r) => (r.body as { slip_token: string }).slip_token)).size).toBe(1);
    const live = await db.db.selectFrom('cash_slips').select('id').where('session_id', '=', s2).where('status', 'in', ['active', 'under_review']).execute();
    expect(live).toHaveLength(1);

    // Two supervisors approve one deposit, each on another instance: one approval, one event.
    const stamp = Date.now() % 1_000_000;
    for (const [u, role] of [[`teller_${stamp}`, 'teller'], [`sup1_${stamp}`, 'supervisor'], [`sup2_${stamp}`, 'supervisor']] as const) {
      await admin(['staff:create', '--username', u, '--password', 'correct horse battery', '--role', role, ...(role === 'teller' ? ['--branch', 'GCB-ACC-HS'] : [])]);
    }
    const teller = await signIn(a.url, `teller_${stamp}`);
    // A token issued by one instance works on the other.
    expect((await staffCall(b.url, teller, 'GET', '/me')).status).toBe(200);
    const token = (slips[0]!.body as { slip_token: string }).slip_token;
    const deposit = await staffCall(b.url, teller, 'POST', `/cash-slips/${token}/deposits`, { amount_minor: cash });
    expect(deposit.status, JSON.stringify(deposit.body)).toBe(201);
    const depositId = (deposit.body as { deposit: { id: string } }).deposit.id;
    const [sup1, sup2] = [await signIn(a.url, `sup1_${stamp}`), await signIn(b.url, `sup2_${stamp}`)];
    const approvals = await Promise.all([staffCall(a.url, sup1, 'POST', `/deposits/${depositId}/approve`), staffCall(b.url, sup2, 'POST', `/deposits/${depositId}/approve`)]);
    expect(approvals.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await completed(s2)).toBe(1);

    // Expiry racing a payment: the session falls due while A takes a card payment and B reads
    // it (lazy expiry), both sweepers running. One terminal state, one event, whichever wins.
    for (let i = 0; i < 3; i++) {
      const s = await session(a.url, m.api_key, `${invoice}-exp-${i}`);
      const card = await total(a.url, s, 'card');
      const due = Date.now() + 400;
      // Shortened in the database (the API's shortest lifetime is 60 s): as if time had passed.
      await db.db.updateTable('checkout_sessions').set({ expires_at: new Date(due).toISOString() }).where('id', '=', s).execute();
      await sleep(due - Date.now());
      const [paid] = await Promise.all([
        request(a.url, 'POST', `/api/v1/checkout/sessions/${s}/card-payments`, { body: { amount_minor: card, card_number: '4242424242424242', expiry_month: '12', expiry_year: '2099', cvc: '123' } }),
        request(b.url, 'GET', `/api/v1/sessions/${s}`, { key: m.api_key }),
      ]);
      await until('the session is final', async () => ['success', 'expired'].includes((await db.db.selectFrom('checkout_sessions').select('status').where('id', '=', s).executeTakeFirstOrThrow()).status), budget(5_000));
      const row = await db.db.selectFrom('checkout_sessions').select('status').where('id', '=', s).executeTakeFirstOrThrow();
      const events = await db.db.selectFrom('events').select('type').where('session_id', '=', s).execute();
      expect(events, JSON.stringify(events)).toHaveLength(1);
      if (paid!.status < 300) {
        expect(row.status).toBe('success');
        expect(events[0]!.type).toBe('checkout.session.completed');
      } else {
        expect(paid!.status, JSON.stringify(paid!.body)).toBe(409);
        expect(row.status).toBe('expired');
        expect(events[0]!.type).toBe('checkout.session.expired');
      }
    }

    // A key revoked elsewhere (here: straight in the database, as another instance or the CLI
    // would) is refused by both instances within the cache bound.
    expect((await request(b.url, 'GET', `/api/v1/sessions/${s1}`, { key: m.api_key })).status).toBe(200);
    const revokedAt = Date.now();
    await db.db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('integration_id', '=', m.integration_id).execute();
    for (const x of [a, b]) {
      await until('the revoked key is refused', async () => (await request(x.url, 'GET', `/api/v1/sessions/${s1}`, { key: m.api_key })).status === 401, CREDENTIAL_CACHE_TTL_MS * 3);
    }
    expect(Date.now() - revokedAt).toBeLessThan(CREDENTIAL_CACHE_TTL_MS * 3);
  }, budget(90_000));

  it('kill -9 of one instance under load: nothing acknowledged is lost, every terminal event is delivered exactly once', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      // Started side by side: on a loaded 2-core machine each start takes seconds.
      const stamp = Date.now() % 1_000_000;
      const [a, b, m] = await Promise.all([
        instance(),
        instance(),
        admin<{ api_key: string }>(['integration:create', '--merchant', `Kill Drill ${Date.now()}`, '--webhook-url', receiver.url]),
        admin(['staff:create', '--username', `fin_${stamp}`, '--password', 'correct horse battery', '--role', 'admin']),
      ]);
      const staffToken = await signIn(b.url, `fin_${stamp}`);

      const acknowledged = new Map<string, string>(); // idempotency key → session id
      const paid = new Set<string>();
      let aDead = false;
      let stop = false;
      let n = 0;
      // Each writer alternates instances; once A is gone, it retries on B with the same key.
      const writer = async (w: number) => {
        while (!stop) {
          const i = ++n;
          const key = `kill-${stamp}-${i}`;
          const body = { amount_minor: 1_000 + i, invoice_ref: `INV-KILL-${stamp}-${i}` };
          let base = (i + w) % 2 && !aDead ? a.url : b.url;
          let created;
          try {
            created = await request(base, 'POST', '/api/v1/sessions', { key: m.api_key, headers: { 'idempotency-key': key }, body });
          } catch {
            base = b.url;
            created = await request(base, 'POST', '/api/v1/sessions', { key: m.api_key, headers: { 'idempotency-key': key }, body });
          }
          if (created.status !== 201) {
            expect(created.status, JSON.stringify(created.body)).toBe(409); // in flight on the dead instance: retried below
            continue;
          }
          const id = (created.body as { id: string }).id;
          acknowledged.set(key, id);
          try {
            const card = await request(base, 'POST', `/api/v1/checkout/sessions/${id}/card-payments`, {
              body: { amount_minor: await total(base, id, 'card'), card_number: '4242424242424242', expiry_month: '12', expiry_year: '2099', cvc: '123' },
            });
            if (card.status === 200 || card.status === 201) paid.add(id);
          } catch {
            // A died mid-payment: whether it committed is read back from the database below.
          }
        }
      };
      // Public and back-office readers on both instances alongside.
      const reader = async () => {
        while (!stop) {
          for (const base of aDead ? [b.url] : [a.url, b.url]) {
            await request(base, 'GET', '/api/v1/checkout/options').catch(() => undefined);
            await staffCall(base, staffToken, 'GET', '/sessions?limit=20').catch(() => undefined);
          }
        }
      };
      receiver.gated = true; // deliveries pile up as retries, some leased by A when it dies
      const load = [...Array.from({ length: 6 }, (_, w) => writer(w)), reader(), reader()];
      await until('sessions paid on both instances', () => paid.size >= 20, budget(60_000));
      await until('a refused delivery attempt', () => receiver.attempts > 0);
      // Kill A while it holds leases: attempts of its in flight to a receiver that does not answer.
      // Only leases A took after the receiver started hanging count: their attempts are still
      // waiting for an answer (for ATTEMPT_TIMEOUT_MS), where an older lease may belong to a
      // refused attempt that A is about to release.
      receiver.hanging = true;
      const hangingSince = new Date(Date.now() + ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS).toISOString();
      const leasedByA = async () =>
        (await db.db.selectFrom('webhook_deliveries').select('id').where('claimed_by', 'like', `%:${a.pid}:%`).where('status', '=', 'pending').where('locked_until', '>=', hangingSince).execute()).length;
      await until('A holds leases on attempts to the hanging receiver', async () => (await leasedByA()) > 0, budget(30_000));
      aDead = true;
      await a.kill9();
      const killedAt = Date.now();
      await sleep(1_500); // load carries on against B
      stop = true;
      await Promise.all(load);

      // Every acknowledged create is there, read through the survivor.
      for (const id of acknowledged.values()) expect((await request(b.url, 'GET', `/api/v1/sessions/${id}`, { key: m.api_key })).status, id).toBe(200);
      const sessions = await db.db.selectFrom('checkout_sessions').select(['id', 'status']).where('invoice_ref', 'like', `INV-KILL-${stamp}-%`).execute();
      expect(sessions.length).toBeGreaterThanOrEqual(acknowledged.size);
      for (const id of paid) expect(sessions.find((s) => s.id === id)?.status, id).toBe('success');
      const events = (await db.db.selectFrom('events').select(['id', 'session_id']).where('type', '=', 'checkout.session.completed').where('session_id', 'in', sessions.map((s) => s.id)).execute()).map((e) => e.id);
      expect(events.length).toBe(sessions.filter((s) => s.status === 'success').length);

      // The receiver recovers; B sends everything, including what A had leased (the wait above fails the test
      // when A held none), within the lease.
      receiver.hanging = false;
      receiver.gated = false;
      // A's leases are taken at once (its liveness lock died with it), not when they lapse: the
      // sends B made meanwhile to the hanging receiver time out (ATTEMPT_TIMEOUT_MS) and are
      // retried 1 s later, so everything arrives well within the lease time.
      const lease = ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS;
      await until('every event delivered by the survivor', () => events.every((id) => receiver.delivered.has(id)), lease);
      expect(Date.now() - killedAt, 'takeover of the dead instance\'s leases').toBeLessThan(lease);
      await sleep(1_500);
      const twice = [...receiver.delivered].filter(([, count]) => count !== 1);
      expect(twice, 'events delivered more than once').toEqual([]);
      expect([...receiver.delivered.keys()].filter((id) => events.includes(id)).sort()).toEqual([...events].sort());
    } finally {
      await receiver.close();
    }
  }, budget(120_000));
});
