import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { TimelineEntry } from '../../shared/schemas/backoffice';
import { MAX_DECLINED_ATTEMPTS } from '../../shared/checkout-limits';
import { MOMO_PROMPT_TTL_SECONDS, MOMO_TEST_NUMBERS } from '../../server/providers/sandbox-momo';
import { sweep } from '../../server/jobs/sweeper';
import { randomIds } from '../../server/lib/ids';
import { createTestApp, type TestContext } from '../support/app';
import { call, sessionWithSlip, staff, type Staff } from '../support/backoffice';
import { authorize, openSession, payByCard, quoteTotal, setAllowedRails, startAttempt, startMomo, status } from '../support/checkout';

/**
 * Each line of a session's timeline carries its detail as a code with its parts (`detail_code`,
 * `detail_args`) beside the English `detail`, so the back office words it in its reader's
 * language: amounts in minor units with their currency, who (username and full name), what
 * staff typed as typed, and every cause of a status change the server records.
 */
/** The sandbox's Ghana numbers by what they do (docs/sandbox.md); 024 123 4567 approves with 123456. */
const APPROVES = '0241234567';
const GH_PHONE = Object.fromEntries(Object.entries(MOMO_TEST_NUMBERS).filter(([, v]) => v.country === 'GH').map(([digits, v]) => [v.scenario, `0${digits.slice(3)}`]));

let t: TestContext;
let m: CreatedIntegration;
let fin: Staff;
let teller: Staff;
let sup: Staff;

beforeAll(async () => {
  t = await createTestApp({ env: { BANK_TRANSFER_WINDOW_S: '900' } });
  m = await t.merchant('Timeline Details Ltd');
  fin = await staff(t, 'finance', { merchantId: m.merchant_id });
  teller = await staff(t, 'teller');
  sup = await staff(t, 'supervisor');
  const admin = await staff(t, 'admin');
  const named = await call(t, admin, 'POST', `/admin/staff/${sup.id}/full-name`, { full_name: 'Kofi Boateng' });
  expect(named.statusCode, named.body).toBe(200);
});
afterAll(async () => t.close());

async function timeline(sessionId: string): Promise<TimelineEntry[]> {
  const res = await call(t, fin, 'GET', `/sessions/${sessionId}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { timeline: TimelineEntry[] }).timeline;
}
/** The transitions' causes, oldest first, as `code` with its arguments. */
const causes = (lines: TimelineEntry[]) => lines.filter((e) => e.kind === 'transition').map((e) => ({ code: e.detail_code, args: e.detail_args }));
const deps = () => ({ clock: t.clock, ids: randomIds, outbox: t.outbox });

describe('timeline details as codes', () => {
  it('cash: created, slip, deposits recorded with a note, rejected with a reason, approved; the causes name who', async () => {
    const slip = await sessionWithSlip(t, m, 10_000, 'INV-TD-CASH');
    const first = await call(t, teller, 'POST', `/cash-slips/${slip.slip_token}/deposits`, { amount_minor: slip.amount_minor, note: 'Counted twice, all 20s' });
    expect(first.statusCode, first.body).toBe(201);
    t.clock.advanceSeconds(30);
    const rejected = await call(t, sup, 'POST', `/deposits/${first.json().deposit.id}/reject`, { reason: 'Two notes are fakes' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    t.clock.advanceSeconds(30);
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', payload: { session_id: slip.session_id, amount_minor: slip.amount_minor } });
    expect(again.statusCode, again.body).toBe(201);
    const second = await call(t, teller, 'POST', `/cash-slips/${again.json().slip_token}/deposits`, { amount_minor: slip.amount_minor });
    t.clock.advanceSeconds(30);
    expect((await call(t, sup, 'POST', `/deposits/${second.json().deposit.id}/approve`)).statusCode).toBe(200);

    const lines = await timeline(slip.session_id);
    const fee = slip.amount_minor - 10_000;
    expect(lines[0]).toMatchObject({
      code: 'session_created',
      detail: 'GHS\u00a0100.00 for invoice INV-TD-CASH',
      detail_code: 'session_amount',
      detail_args: { amount_minor: 10_000, currency: 'GHS', invoice_ref: 'INV-TD-CASH' },
    });
    const slips = lines.filter((e) => e.code === 'slip_issued');
    expect(slips.map((e) => e.detail_code)).toEqual(['slip_amounts', 'slip_amounts']);
    expect(slips.map((e) => e.detail_args)).toEqual([
      { currency: 'GHS', charged_minor: slip.amount_minor, fee_minor: fee, net_minor: 10_000, fee_bearer: fee === 0 ? null : 'payer', slip_status: 'voided' },
      { currency: 'GHS', charged_minor: slip.amount_minor, fee_minor: fee, net_minor: 10_000, fee_bearer: fee === 0 ? null : 'payer', slip_status: 'used' },
    ]);
    const recorded = lines.filter((e) => e.code === 'deposit_recorded');
    expect(recorded.map((e) => [e.detail_code, e.detail_args])).toEqual([
      ['deposit_amount', { amount_minor: slip.amount_minor, currency: 'GHS', username: teller.username, full_name: null, note: 'Counted twice, all 20s' }],
      ['deposit_amount', { amount_minor: slip.amount_minor, currency: 'GHS', username: teller.username, full_name: null, note: null }],
    ]);
    const reviewed = lines.filter((e) => e.code === 'deposit_reviewed');
    expect(reviewed.map((e) => [e.detail_code, e.detail_args])).toEqual([
      ['deposit_review', { status: 'rejected', username: sup.username, full_name: 'Kofi Boateng', reason: 'Two notes are fakes' }],
      ['deposit_review', { status: 'approved', username: sup.username, full_name: 'Kofi Boateng', reason: null }],
    ]);
    expect(causes(lines)).toEqual([
      { code: 'cause_deposit_recorded', args: { username: teller.username, full_name: null } },
      { code: 'cause_deposit_rejected', args: { username: sup.username, full_name: 'Kofi Boateng', reason: 'Two notes are fakes' } },
      { code: 'cause_deposit_recorded', args: { username: teller.username, full_name: null } },
      { code: 'cause_deposit_approved', args: { username: sup.username, full_name: 'Kofi Boateng' } },
    ]);
    // The English detail stays the server's record, as API clients read it.
    expect(lines.filter((e) => e.kind === 'transition').map((e) => e.detail)).toEqual([
      `Cash deposit recorded by ${teller.username}, awaiting supervisor review`,
      `Cash deposit rejected by ${sup.username}: Two notes are fakes`,
      `Cash deposit recorded by ${teller.username}, awaiting supervisor review`,
      `Cash deposit approved by ${sup.username}`,
    ]);
    // Events say everything in their code and args: no detail for the screen.
    expect(lines.filter((e) => e.kind === 'event' || e.kind === 'delivery').every((e) => e.detail_code === null)).toBe(true);
  });

  it('card: declined then approved; the attempt carries its amounts and card, the decline its reason code', async () => {
    const s = await openSession(t, m, { amount_minor: 18_500, invoice_ref: 'INV-TD-CARD' });
    expect((await payByCard(t, s.id, '4000000000000002')).json()).toMatchObject({ status: 'declined' });
    expect((await payByCard(t, s.id, '4242424242424242')).json()).toMatchObject({ status: 'succeeded' });
    const lines = await timeline(s.id);
    const started = lines.filter((e) => e.code === 'attempt_started');
    expect(started).toHaveLength(2);
    const charged = started[0]!.detail_args.charged_minor as number;
    const fee = started[0]!.detail_args.fee_minor as number;
    expect(started[0]).toMatchObject({
      detail_code: 'attempt_amounts',
      detail_args: { rail: 'card', currency: 'GHS', charged_minor: charged, fee_minor: fee, net_minor: charged - fee, card_brand: 'visa', card_last4: '0002', operator: null, phone_last4: null, payment_reference: null },
    });
    expect(started[0]!.detail_args.fee_bearer).toBe(fee === 0 ? null : charged > 18_500 ? 'payer' : 'merchant');
    expect(started[1]!.detail_args).toMatchObject({ card_brand: 'visa', card_last4: '4242' });
    const finished = lines.filter((e) => e.code === 'attempt_finished');
    expect(finished.map((e) => [e.args.status, e.detail_code, e.detail_args, e.detail])).toEqual([
      ['declined', 'decline_reason', { reason: 'card_declined' }, 'Reason: Card declined'],
      ['succeeded', null, {}, ''],
    ]);
    expect(causes(lines)).toEqual([
      { code: 'cause_sent_to_provider', args: { rail: 'card' } },
      { code: 'cause_attempt_ended', args: { rail: 'card', status: 'declined' } },
      { code: 'cause_sent_to_provider', args: { rail: 'card' } },
      { code: 'cause_approved', args: { rail: 'card' } },
    ]);
  });

  it('Mobile Money: prompt sent, a wrong code, a wallet the provider refuses, an expired prompt, a confirmation on refresh, approved by the payer', async () => {
    const s = await openSession(t, m, { invoice_ref: 'INV-TD-MOMO' });
    const wrong = await startMomo(t, s.id, APPROVES, 'mtn');
    expect((await authorize(t, s.id, wrong.attempt_reference, '000000')).json()).toMatchObject({ status: 'declined', decline_reason: 'invalid_code' });
    const refused = await startAttempt(t, s.id, { rail: 'momo', amount_minor: await quoteTotal(t, s.id, 'momo'), operator: 'mtn', phone: GH_PHONE.wallet_rejected });
    expect(refused.statusCode, refused.body).toBeGreaterThanOrEqual(400);
    await startMomo(t, s.id, APPROVES, 'telecel');
    t.clock.advanceSeconds(MOMO_PROMPT_TTL_SECONDS + 1);
    await sweep(t.database.db, deps());
    const stuck = await startMomo(t, s.id, GH_PHONE.stuck, 'airteltigo');
    expect((await authorize(t, s.id, stuck.attempt_reference, '123456')).statusCode).toBe(200);
    expect((await status(t, s.id, stuck.attempt_reference, true)).json()).toMatchObject({ session_status: 'success' });

    const other = await openSession(t, m, { invoice_ref: 'INV-TD-MOMO-2' });
    const ok = await startMomo(t, other.id, APPROVES, 'mtn');
    expect((await authorize(t, other.id, ok.attempt_reference, '123456')).json()).toMatchObject({ session_status: 'success' });

    const lines = await timeline(s.id);
    expect(causes(lines)).toEqual([
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_attempt_ended', args: { rail: 'momo', status: 'declined' } },
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_provider_refused', args: { rail: 'momo' } },
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_prompt_expired', args: { rail: 'momo' } },
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_confirmed_on_refresh', args: { rail: 'momo' } },
    ]);
    const started = lines.filter((e) => e.code === 'attempt_started');
    expect(started.map((e) => [e.detail_args.operator, e.detail_args.phone_last4])).toEqual([
      ['mtn', APPROVES.slice(-4)],
      ['telecel', APPROVES.slice(-4)],
      ['airteltigo', GH_PHONE.stuck!.slice(-4)],
    ]);
    expect(lines.filter((e) => e.code === 'attempt_finished').map((e) => e.detail_args)).toEqual([{ reason: 'invalid_code' }, { reason: 'prompt_expired' }, {}]);
    expect(causes(await timeline(other.id))).toEqual([
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_approved_by_payer', args: { rail: 'momo' } },
    ]);
  });

  it('bank transfer: instructions issued with their end, a transfer received; a window that ends without one', async () => {
    const admin = await staff(t, 'admin');
    const paid = await openSession(t, m, { invoice_ref: 'INV-TD-BANK' });
    const a = await startAttempt(t, paid.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, paid.id, 'bank_transfer') });
    expect(a.statusCode, a.body).toBe(201);
    const { instructions, amount_charged_minor } = a.json() as { amount_charged_minor: number; instructions: { payment_reference: string; expires_at: string } };
    expect((await call(t, admin, 'POST', '/admin/sandbox/bank-transfers', { payment_reference: instructions.payment_reference, amount_minor: amount_charged_minor })).statusCode).toBe(200);
    const lines = await timeline(paid.id);
    expect(causes(lines)).toEqual([
      { code: 'cause_instructions_issued', args: { rail: 'bank_transfer', valid_until: instructions.expires_at } },
      { code: 'cause_transfer_received', args: { rail: 'bank_transfer' } },
    ]);
    expect(lines.find((e) => e.code === 'attempt_started')!.detail_args).toMatchObject({ rail: 'bank_transfer', payment_reference: instructions.payment_reference });

    const lapsed = await openSession(t, m, { invoice_ref: 'INV-TD-BANK-2' });
    expect((await startAttempt(t, lapsed.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, lapsed.id, 'bank_transfer') })).statusCode).toBe(201);
    t.clock.advanceSeconds(901);
    await sweep(t.database.db, deps());
    const after = await timeline(lapsed.id);
    expect(causes(after).map((c) => c.code)).toEqual(['cause_instructions_issued', 'cause_transfer_window_ended']);
    expect(causes(after)[1]!.args).toEqual({ rail: 'bank_transfer' });
    expect(after.filter((e) => e.code === 'attempt_finished').map((e) => e.detail_args)).toEqual([{ reason: 'transfer_window_ended' }]);
  });

  it('a session closed: the time ran out, the decline limit reached, or no payment method left', async () => {
    const late = await openSession(t, m, { invoice_ref: 'INV-TD-LATE', expires_in_seconds: 60 });
    t.clock.advanceSeconds(61);
    expect(causes(await timeline(late.id))).toEqual([{ code: 'cause_time_ran_out', args: {} }]);

    const capped = await openSession(t, m, { invoice_ref: 'INV-TD-CAP' });
    for (let i = 0; i < MAX_DECLINED_ATTEMPTS; i++) expect((await payByCard(t, capped.id, '4000000000000002')).statusCode).toBe(201);
    expect(causes(await timeline(capped.id)).at(-1)).toEqual({ code: 'cause_decline_limit', args: { count: MAX_DECLINED_ATTEMPTS } });

    const stranded = await openSession(t, m, { invoice_ref: 'INV-TD-NONE' });
    const a = await startMomo(t, stranded.id);
    await setAllowedRails(t, m.integration_id, []);
    try {
      await authorize(t, stranded.id, a.attempt_reference, '000000');
    } finally {
      await setAllowedRails(t, m.integration_id, ['momo', 'card', 'bank_transfer', 'cash']);
    }
    expect(causes(await timeline(stranded.id)).at(-1)).toEqual({ code: 'cause_no_method_left', args: {} });
  });

  it('a cause the sandbox never writes (confirmed on resend, settled at initiation) or an unknown one still has its code', async () => {
    const s = await openSession(t, m, { invoice_ref: 'INV-TD-RECORDED' });
    const at = (n: number) => new Date(t.clock.now().getTime() + n * 1000).toISOString();
    const rows = [
      ['open', 'pending', 'momo attempt pa_1a2b3c4d5e6f prompt sent'],
      ['pending', 'success', 'momo attempt pa_1a2b3c4d5e6f confirmed on resend'],
      ['success', 'success', 'momo attempt pa_1a2b3c4d5e6f succeeded at initiation'],
      ['success', 'success', 'settled by the bank after a manual check'],
    ] as const;
    await t.database.db
      .insertInto('session_history')
      .values(rows.map(([from, to, cause], i) => ({ id: randomIds.uuid(), session_id: s.id, from_status: from, to_status: to, cause, at: at(i + 1) })))
      .execute();
    expect(causes(await timeline(s.id))).toEqual([
      { code: 'cause_prompt_sent', args: { rail: 'momo' } },
      { code: 'cause_confirmed_on_resend', args: { rail: 'momo' } },
      { code: 'cause_settled_at_initiation', args: { rail: 'momo', status: 'succeeded' } },
      { code: 'cause_other', args: { text: 'Settled by the bank after a manual check' } },
    ]);
  });
});
