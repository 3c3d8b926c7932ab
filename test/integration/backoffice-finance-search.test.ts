import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import { createTestApp, type TestContext } from '../support/app';
import { openSession, startMomo } from '../support/checkout';
import { call, errorCode, sessionWithSlip, staff, type Slip, type Staff } from '../support/backoffice';

interface Row {
  id: string;
  amount_minor: number;
  fee_minor: number | null;
  collected_minor: number | null;
  payment_reference: string | null;
}

describe('finance search the way a caller describes a payment, and one set of amounts everywhere', () => {
  let t: TestContext;
  let a: CreatedIntegration;
  let b: CreatedIntegration;
  let fin: Staff;
  let paid: Slip;
  let momoSession: string;
  let momoRef: string;
  let other: Slip;

  beforeAll(async () => {
    t = await createTestApp();
    a = await t.merchant('Search A');
    b = await t.merchant('Search B');
    fin = await staff(t, 'finance', { merchantId: a.merchant_id });
    const teller = await staff(t, 'teller');
    const sup = await staff(t, 'supervisor');
    paid = await sessionWithSlip(t, a, 12_345, 'WATER-2026-0042');
    const dep = (await call(t, teller, 'POST', `/cash-slips/${paid.slip_token}/deposits`, { amount_minor: paid.amount_minor })).json().deposit.id;
    expect((await call(t, sup, 'POST', `/deposits/${dep}/approve`)).statusCode).toBe(200);
    const momo = await openSession(t, a, { amount_minor: 5_000, invoice_ref: 'ELEC-77', customer: { name: 'Kofi Boateng' } });
    momoSession = momo.id;
    const attempt = await startMomo(t, momo.id, '0241239876');
    momoRef = (await t.database.db.selectFrom('payment_attempts').select('provider_reference').where('id', '=', attempt.attempt_reference).executeTakeFirstOrThrow()).provider_reference;
    // Another merchant's session with the same payer name and amount must never show up.
    other = await sessionWithSlip(t, b, 12_345, 'WATER-2026-0043');
  });
  afterAll(async () => t.close());

  const search = async (qs: string) => {
    const res = await call(t, fin, 'GET', `/sessions?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { sessions: Row[] }).sessions.map((s) => s.id);
  };

  it('finds a session by payer name (any case), phone last 4, session id, invoice ref (contains), slip, provider reference and amount', async () => {
    expect(await search('q=mensah')).toEqual([paid.session_id]);
    expect(await search('q=9876')).toEqual([momoSession]);
    expect(await search(`q=${paid.session_id}`)).toEqual([paid.session_id]);
    // The first 7 characters after `cs_test_` are the creation time (ids.ts timeOrderedSecretBase62): a prefix singles a session out past them.
    expect(await search(`q=${paid.session_id.slice(0, 20)}`)).toEqual([paid.session_id]);
    expect(await search(`q=${paid.session_id.slice(0, 12)}`)).toContain(paid.session_id);
    expect(await search('q=2026-00')).toEqual([paid.session_id]);
    expect(await search(`q=${encodeURIComponent(paid.reference.toLowerCase().replace(/-/g, ' '))}`)).toEqual([paid.session_id]);
    expect(await search(`q=${encodeURIComponent(momoRef)}`)).toEqual([momoSession]);
    expect(await search('amount_minor=12345')).toEqual([paid.session_id]);
    expect(await search(`amount_minor=${paid.amount_minor}`)).toEqual([paid.session_id]);
    expect(await search('q=boateng&amount_minor=12345')).toEqual([]);
    expect(await search(`q=${other.session_id}`)).toEqual([]);
    expect(await search('q=%25')).toEqual([]);
  });

  it('"contains" runs on the trigram index: any case, any characters taken literally, kept up to date; under 3 characters the exact invoice ref only', async () => {
    // Characters that mean something to LIKE (% _ \\) or to an FTS5 query (" * : ( ) NEAR OR) are plain text.
    const odd = await openSession(t, a, { amount_minor: 700, invoice_ref: 'Q7', customer: { name: 'Esi "50%_off" \\ (NEAR) Ofori*' } });
    expect(await search('q=ENSA')).toEqual([paid.session_id]);
    expect(await search('q=lec-7')).toEqual([momoSession]);
    expect(await search(`q=${encodeURIComponent('"50%_off"')}`)).toEqual([odd.id]);
    expect(await search(`q=${encodeURIComponent('50%_')}`)).toEqual([odd.id]);
    expect(await search(`q=${encodeURIComponent('\\ (NEAR) Ofori*')}`)).toEqual([odd.id]);
    expect(await search(`q=${encodeURIComponent('50%x')}`)).toEqual([]);
    expect(await search(`q=${encodeURIComponent('0_o')}`)).toEqual([]);
    for (const hostile of ['"', '""', '" OR "a', 'a* NOT b', 'NEAR(a b)', 'customer_name : x', '%%%', '___', '\\\\', "'; --", '^Esi', '{invoice_ref}:Q']) {
      const res = await call(t, fin, 'GET', `/sessions?q=${encodeURIComponent(hostile)}`);
      expect(res.statusCode, hostile).toBe(200);
    }
    // Under 3 characters: the exact invoice ref, never a name or a part of a ref.
    expect(await search('q=Q7')).toEqual([odd.id]);
    expect(await search('q=Es')).toEqual([]);
    expect(await search('q=EL')).toEqual([]);
    // The invoice_ref filter: contains (any case, the ref only), exact under 3 characters.
    expect(await search('invoice_ref=lec-')).toEqual([momoSession]);
    expect(await search('invoice_ref=ofori')).toEqual([]);
    expect(await search('invoice_ref=Q7')).toEqual([odd.id]);
    expect(await search('invoice_ref=7')).toEqual([]);
    // The index follows a change of the searched columns (triggers on SQLite, the table itself on PostgreSQL).
    await t.database.db.updateTable('checkout_sessions').set({ customer_name: 'Yaw Asante', invoice_ref: 'Q8-RENAMED' }).where('id', '=', odd.id).execute();
    expect(await search('q=Ofori')).toEqual([]);
    expect(await search('q=asante')).toEqual([odd.id]);
    expect(await search('q=renamed')).toEqual([odd.id]);
  });

  it('refuses a bad search with 400 naming the field', async () => {
    for (const [qs, field] of [
      [`q=${'x'.repeat(121)}`, 'q'],
      ['amount_minor=12.5', 'amount_minor'],
      ['amount_minor=lots', 'amount_minor'],
    ] as const) {
      const res = await call(t, fin, 'GET', `/sessions?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(errorCode(res)).toBe('INVALID_ARGUMENT');
      expect(res.json().error.message).toContain(field);
    }
  });

  it('base, fee and collected amount agree in the list, the detail, the timeline and the CSV', async () => {
    const [row] = (await call(t, fin, 'GET', `/sessions?q=${paid.session_id}`)).json().sessions as Row[];
    const fee = paid.amount_minor - 12_345;
    expect(fee).toBeGreaterThan(0);
    expect(row).toMatchObject({ amount_minor: 12_345, fee_minor: fee, collected_minor: paid.amount_minor, payment_reference: paid.reference });
    const detail = (await call(t, fin, 'GET', `/sessions/${paid.session_id}`)).json();
    expect(detail.session).toMatchObject({ amount_minor: 12_345, fee_minor: fee, collected_minor: paid.amount_minor });
    const slip = detail.timeline.find((e: { kind: string }) => e.kind === 'slip');
    expect(slip.detail.replace(/\u00a0/g, ' ')).toContain(`GHS ${(paid.amount_minor / 100).toFixed(2)} charged · cash fee GHS ${(fee / 100).toFixed(2)} paid by the payer · GHS 123.45 to the merchant`);
    const csv = (await call(t, fin, 'GET', '/reports/payments.csv?from=2000-01-01T00:00:00Z&to=2000-12-31T00:00:00Z')).body;
    expect(csv.trim().split('\r\n')).toHaveLength(1);
    const now = t.clock.now().getTime();
    const rows = (await call(t, fin, 'GET', `/reports/payments.csv?from=${new Date(now - 86_400_000).toISOString()}&to=${new Date(now + 60_000).toISOString()}`)).body.trim().split('\r\n');
    const head = rows[0]!.split(',');
    const cells = rows[1]!.split(',');
    const col = (name: string) => cells[head.indexOf(name)];
    expect([col('amount_minor'), col('fee_minor'), col('collected_minor')]).toEqual(['12345', String(fee), String(paid.amount_minor)]);
    expect([col('amount'), col('fee'), col('collected')]).toEqual(['123.45', (fee / 100).toFixed(2), (paid.amount_minor / 100).toFixed(2)]);
    const open = (await call(t, fin, 'GET', `/sessions?q=${momoSession}`)).json().sessions[0] as Row;
    expect(open).toMatchObject({ amount_minor: 5_000, fee_minor: null, collected_minor: null });
  });
});
