import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp } from '../support/app';
import { onPostgres } from '../support/database';
import { authorize, openSession, payByCard, quoteTotal, startAttempt, startMomo } from '../support/checkout';
import { get, post } from '../support/http';
import { startLocalReceiver } from '../support/local-receiver';
import { planPg, recordedApp, seqScansPg, usesIndexPg } from '../support/query-plans';
import { testDispatcher, until } from '../support/webhooks';
import { namedTexts } from '../../server/db/prepared-statements';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import { sessionRowVersion } from '../../server/db/row-versions';

describe.runIf(onPostgres)('PostgreSQL connections of the app', () => {
  it('run without JIT compilation, which cost seconds per query at volume', async () => {
    const t = await createTestApp();
    try {
      // Every pooled connection, not just the first: hold several at once.
      const settings = await Promise.all(
        Array.from({ length: 3 }, () => t.database.db.connection().execute(async (conn) => (await sql<{ jit: string }>`show jit`.execute(conn)).rows[0]!.jit)),
      );
      expect(settings).toEqual(['off', 'off', 'off']);
    } finally {
      await t.close();
    }
  });
});

/** Either index of a session's id: the primary key, or the one for prefix searches (0016). */
const SESSION_ID = ['checkout_sessions_pkey', 'checkout_sessions_id_pattern'];

/**
 * The hot statements and the index each reads its tables through. On PostgreSQL they are the
 * texts of server/db/precompiled.ts (the merchant API, the checkout, the webhook claim and its
 * outcomes), which the pool's connections run as named prepared statements
 * (server/db/prepared-statements.ts): planned with the call's values for the first runs, then, once
 * PostgreSQL finds it no dearer, with one generic plan for every call. A text matches exactly one
 * entry, and every entry a text: a new hot statement fails here until its index is named. Where
 * two indexes serve the same lookup equally (a session's id), either is named.
 */
const HOT: ReadonlyArray<{ what: string; sql: RegExp; reads: ReadonlyArray<readonly [table: string, index: string | readonly string[]]> }> = [
  { what: 'an invoice\'s lines', sql: /^select .* from "invoice_lines" where "merchant_id" = \$1 and "mode" = \$2 and "invoice_ref" = \$3$/, reads: [['invoice_lines', 'invoice_lines_merchant_ref_mode_code']] },
  { what: 'the active revenue lines', sql: /^select .* from "revenue_lines" where "merchant_id" = \$1 and "mode" = \$2 and "active" = \$3$/, reads: [['revenue_lines', 'revenue_lines_merchant_mode_code']] },
  { what: 'invoice lines upserted from their JSON', sql: /^INSERT INTO invoice_lines .* SELECT e->>0/s, reads: [] },
  { what: 'a key\'s answer completed', sql: /^update "idempotency_keys" set .* where "integration_id" = \$\d+ and "key" = \$\d+$/, reads: [['idempotency_keys', 'idempotency_keys_pk']] },
  { what: 'a key\'s row', sql: /^select .* from "idempotency_keys" where "integration_id" = \$1 and "key" = \$2$/, reads: [['idempotency_keys', 'idempotency_keys_pk']] },
  { what: 'a session created with a key', sql: /^with "m" as \(select "currency" from "invoice_lines" [^)]*\), "k" as \(insert into "idempotency_keys"/, reads: [['invoice_lines', 'invoice_lines_merchant_ref_mode_code']] },
  { what: 'a session created', sql: /^with "m" as \(select "currency" from "invoice_lines" [^)]*\), "s" as \(insert into "checkout_sessions"/, reads: [['invoice_lines', 'invoice_lines_merchant_ref_mode_code']] },
  { what: 'the merchant\'s session lookup', sql: /^select \*, xmin::text \|\| ' ' \|\| updated_at as "row_version" from "checkout_sessions" where "id" = \$1 and "merchant_id" = \$2$/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'a kept lookup\'s row version', sql: /^select xmin::text \|\| ' ' \|\| updated_at as "v" from "checkout_sessions" where "id" = \$1 and "merchant_id" = \$2$/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'kept lookups\' row versions, asked together', sql: /^select "id", "merchant_id", xmin::text \|\| ' ' \|\| updated_at as "v" from "checkout_sessions" where id = any\(\$1\)$/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'the payer\'s session with its owner', sql: /^select "s"\.\*, "m"\."name" as "merchant_name"/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'the quote\'s fee rules', sql: /^select .* from "fee_rules" where "integration_id" = \$1 and "currency" = \$2$/, reads: [['fee_rules', 'fee_rules_integration_currency_rail']] },
  { what: 'a rail\'s fee rule', sql: /^select .* from "fee_rules" where "integration_id" = \$1 and "currency" = \$2 and "rail" = \$3$/, reads: [['fee_rules', 'fee_rules_integration_currency_rail']] },
  { what: 'a session\'s expiry', sql: /^select "status", "expires_at" from "checkout_sessions" where "id" = \$1$/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'a session moved', sql: /^update "checkout_sessions" set "status" = \$1, "updated_at" = \$2 where "id" = \$3 and "status" = \$4/, reads: [['checkout_sessions', SESSION_ID]] },
  { what: 'an attempt of a session', sql: /^select \* from "payment_attempts" where "id" = \$1 and "session_id" = \$2$/, reads: [['payment_attempts', ['payment_attempts_pkey', 'payment_attempts_session']]] },
  { what: 'a provider\'s answer to an attempt', sql: /^update "payment_attempts" set "provider" = \$1, .* where "id" = \$\d+ and "status" = \$\d+ and "raw_status" = \$\d+ returning \*$/, reads: [['payment_attempts', 'payment_attempts_pkey']] },
  {
    what: 'the webhook claim',
    sql: /^update "webhook_deliveries" set "claimed_by" = \$1, "locked_until" = \$2 where "id" in \(select "c"\."id" from "webhook_deliveries" as "c"/,
    reads: [['webhook_deliveries', 'webhook_deliveries_due'], ['webhook_deliveries', 'webhook_deliveries_held'], ['webhook_deliveries', 'webhook_deliveries_pkey']],
  },
  { what: 'the claimed deliveries\' events', sql: /^select "id", "type", "payload" from "events" where "id" in \(/, reads: [['events', 'events_pkey']] },
  { what: 'the claimed deliveries\' endpoints', sql: /^select "w"\.\*, "i"\."mode" from "webhook_endpoints" as "w"/, reads: [['webhook_endpoints', ['webhook_endpoints_pkey', 'webhook_endpoints_integration']]] },
  {
    what: 'a delivery\'s outcome',
    sql: /^update "webhook_deliveries" as "d" set "status" = \$1/,
    reads: [['webhook_deliveries', 'webhook_deliveries_pkey'], ['webhook_delivery_attempts', 'webhook_delivery_attempts_delivery']],
  },
];

/**
 * The hot paths run over HTTP against PostgreSQL, and the texts they prepared explained as
 * PostgreSQL plans them. Tables this small would be read whole by choice, so every plan is made
 * with `enable_seqscan = off` (after ANALYZE; no rows are seeded): a Seq Scan left in a plan is a
 * table no index serves. With a call's values, the planner's choice among the indexes that do is
 * not meaningful at this size (a partial index of the three open sessions costs what the primary
 * key does), so that plan must only read every growing table through some index; the generic plan
 * does not depend on the values and must read each table through the index HOT names.
 */
describe.runIf(onPostgres)('the statements PostgreSQL prepares for the hot paths read through their index', () => {
  it('explains each prepared text with a call’s values and as its generic plan', async () => {
    const { t, recorder } = await recordedApp();
    const receiver = await startLocalReceiver();
    try {
      const m = await t.merchant('Hot Paths', receiver.url);
      const key = m.api_key;
      const keyed = (url: string, body: object, k: string) => post(t.app, url, body, { key, headers: { 'idempotency-key': k } });
      recorder.label = 'hot paths';
      // The merchant API: revenue and invoice lines, sessions with and without a key, a replay, a
      // refused currency, the lookup.
      expect((await post(t.app, '/api/v1/revenue-lines', { lines: [{ code: 'HOTW', name: 'Water' }] }, { key })).statusCode).toBe(200);
      const lines = { invoice_ref: 'HOT-1', currency: 'GHS', lines: [{ code: 'HOTW', amount_minor: 10_000 }] };
      expect((await keyed('/api/v1/invoice-lines', lines, 'hot-lines')).statusCode).toBe(200);
      expect((await keyed('/api/v1/invoice-lines', lines, 'hot-lines')).statusCode).toBe(200);
      const created = await keyed('/api/v1/sessions', { amount_minor: 10_000, invoice_ref: 'HOT-1' }, 'hot-session');
      expect(created.statusCode, created.body).toBe(201);
      expect((await keyed('/api/v1/sessions', { amount_minor: 10_000, invoice_ref: 'HOT-1' }, 'hot-session')).statusCode).toBe(201);
      expect((await keyed('/api/v1/sessions', { amount_minor: 10_000, invoice_ref: 'HOT-1', currency: 'USD' }, 'hot-usd')).statusCode).toBe(409);
      expect((await post(t.app, '/api/v1/sessions', { amount_minor: 10_000, invoice_ref: 'HOT-1', currency: 'USD' }, { key })).statusCode).toBe(409);
      const card = await openSession(t, m, { invoice_ref: 'HOT-1' });
      const createdId = (created.json() as { id: string }).id;
      expect((await get(t.app, `/api/v1/sessions/${createdId}`, key)).statusCode).toBe(200);
      // A kept lookup's version check: the recorded handle keeps no answers (a derived handle),
      // so it is asked on the opened one, through the same pool.
      expect(await sessionRowVersion(t.database.db, m.merchant_id, createdId)).toMatch(/^\d+ /);
      // Asks that arrive together share one statement.
      const together = await Promise.all([createdId, card.id].map((id) => sessionRowVersion(t.database.db, m.merchant_id, id)));
      expect(together).toEqual([expect.stringMatching(/^\d+ /), expect.stringMatching(/^\d+ /)]);
      // The checkout: a card payment, a Mobile Money prompt authorized, bank-transfer instructions.
      expect((await payByCard(t, card.id, '4242424242424242')).statusCode).toBe(201);
      const momo = await openSession(t, m, { invoice_ref: 'HOT-2' });
      const prompt = await startMomo(t, momo.id);
      expect((await authorize(t, momo.id, prompt.attempt_reference, '123456')).statusCode).toBe(200);
      const transfer = await openSession(t, m, { invoice_ref: 'HOT-3' });
      expect((await startAttempt(t, transfer.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, transfer.id, 'bank_transfer') })).statusCode).toBe(201);
      // The webhooks of the two payments, claimed and sent; then a sweep.
      const dispatcher = testDispatcher(t);
      await dispatcher.start();
      try {
        await receiver.waitFor(2);
        await until('the outcomes written', async () => (await t.database.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').executeTakeFirst()) === undefined);
      } finally {
        await dispatcher.stop();
      }
      await sweep(t.database.db, { clock: t.clock, ids: randomIds, outbox: t.outbox });
      recorder.label = null;

      await sql`ANALYZE`.execute(t.database.db);
      const ran = new Map([...recorder.seen.values()].map((q) => [q.sql, q.parameters]));
      // Inserts of values read nothing; an INSERT … SELECT is held to its reads like any other.
      const texts = namedTexts().filter((text) => !/^\s*insert\b/i.test(text) || /\bselect\b/i.test(text));
      expect(texts.length).toBeGreaterThan(0);
      const failures: string[] = [];
      const matched = new Set<string>();
      for (const text of texts) {
        const entries = HOT.filter((h) => h.sql.test(text));
        const values = ran.get(text);
        const plans = [
          ...(values ? [['with a call’s values', await planPg(t.database.db, text, values)] as const] : []),
          ['generic', await planPg(t.database.db, text, 'generic')] as const,
        ];
        const show = () => `\n  ${text}\n${plans.map(([kind, plan]) => `  plan (${kind}):\n    ${plan.replaceAll('\n', '\n    ')}`).join('\n')}`;
        if (!values) failures.push(`prepared, but not run by the hot paths above:${show()}`);
        if (entries.length !== 1) {
          failures.push(`${entries.length === 0 ? 'no entry of HOT names' : `${entries.length} entries of HOT name`} the index of:${show()}`);
          continue;
        }
        const [entry] = entries;
        matched.add(entry!.what);
        for (const [kind, plan] of plans) {
          const scans = seqScansPg(plan);
          if (scans.length > 0) failures.push(`[${entry!.what}] ${kind}: reads ${scans.join(', ')} whole${show()}`);
          if (kind !== 'generic') continue;
          for (const [table, index] of entry!.reads) {
            const indexes = typeof index === 'string' ? [index] : index;
            if (!indexes.some((i) => usesIndexPg(plan, table, i))) failures.push(`[${entry!.what}] ${kind}: does not read ${table} through ${indexes.join(' or ')}${show()}`);
          }
        }
      }
      expect(failures, failures.join('\n\n')).toEqual([]);
      // Each entry is a statement the hot paths still prepare.
      expect(HOT.map((h) => h.what).filter((what) => !matched.has(what))).toEqual([]);
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});
