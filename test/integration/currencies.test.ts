import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get, post } from '../support/http';
import { authorize, expectError, openSession, publicSession, sessionUrl, setFeeRule, startAttempt } from '../support/checkout';
import { call, staff, type Staff } from '../support/backoffice';
import { MAX_AMOUNT_MINOR } from '../../shared/schemas/common';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

type Quote = { surcharges: Record<string, { fee_minor: number; total_minor: number; currency: string; bearer: string }> };

/** Sessions in every currency: fees from their own currency's rules, the payer's countries, networks and numbers, and the amount cap. */
describe('money and countries per currency', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let admin: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Abidjan Eau');
    admin = await staff(t, 'admin');
  });
  afterAll(async () => t.close());

  const quote = async (id: string) => {
    const res = await get(t.app, `${sessionUrl(id)}/quote`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as Quote).surcharges;
  };
  const fees = (q: Quote['surcharges']) => Object.fromEntries(Object.entries(q).map(([rail, s]) => [rail, s.fee_minor]));

  it('quotes an XOF session with XOF rules only: the shipped XOF defaults, then the admin’s XOF rule; a GHS rule never applies', async () => {
    // A GHS rule of this integration: it must not reach the XOF session.
    await setFeeRule(t, m.integration_id, 'bank_transfer', { percent_bps: 0, fixed_minor: 450, cap_minor: null, bearer: 'payer' }, 'GHS');
    const xof = await openSession(t, m, { amount_minor: 250_000, currency: 'XOF' });
    const q = await quote(xof.id);
    // 1 % of XOF 250,000 is 2,500, capped at XOF 1,000; flat XOF 100 and XOF 150; card merchant-borne.
    expect(fees(q)).toEqual({ momo: 1_000, card: 4_875, bank_transfer: 100, cash: 150 });
    expect(q.momo).toMatchObject({ total_minor: 251_000, currency: 'XOF' });

    const set = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/fee-rules`, { rail: 'cash', currency: 'XOF', percent_bps: 0, fixed_minor: 300, cap_minor: null, bearer: 'payer' });
    expect(set.statusCode, set.body).toBe(200);
    const view = (set.json() as { integrations: { integration_id: string; fee_rules: { rail: string; currency: string; fixed_minor: number; default: boolean }[] }[] }).integrations.find((i) => i.integration_id === m.integration_id)!;
    expect(view.fee_rules.filter((r) => r.rail === 'cash').map((r) => [r.currency, r.fixed_minor, r.default])).toEqual([
      ['GHS', 200, true],
      ['XOF', 300, false],
      ['KES', 5_000, true],
    ]);
    expect((await quote(xof.id)).cash).toMatchObject({ fee_minor: 300, total_minor: 250_300 });
    // The GHS session of the same integration keeps its GHS figures.
    const ghs = await openSession(t, m, { amount_minor: 19_653 });
    expect(fees(await quote(ghs.id))).toEqual({ momo: 197, card: 383, bank_transfer: 450, cash: 200 });
  });

  it('quotes a currency without shipped defaults with each rail’s percentage part alone', async () => {
    const usd = await openSession(t, m, { amount_minor: 1_000_000, currency: 'USD' });
    expect(fees(await quote(usd.id))).toEqual({ momo: 10_000, card: 19_500, bank_transfer: 0, cash: 0 }); // 1 % uncapped, 1.95 %, nothing fixed
    expect((await publicSession(t, usd.id)).momo_countries).toEqual([]);
  });

  it('offers an XOF payer Côte d’Ivoire and Senegal, with their own networks and number formats; stores E.164 and shows the last four', async () => {
    const s = await openSession(t, m, { amount_minor: 5_000, currency: 'XOF' });
    expect((await publicSession(t, s.id)).momo_countries).toEqual(['CI', 'SN']);
    const total = (await quote(s.id)).momo!.total_minor;
    const attempt = (body: Record<string, unknown>) => startAttempt(t, s.id, { rail: 'momo', amount_minor: total, ...body });

    const ghana = await attempt({ operator: 'orange', phone: '0241234567' });
    expectError(ghana, 400, 'INVALID_ARGUMENT');
    expect(ghana.json().error.message).toBe(
      "phone: must be a Côte d'Ivoire number: 0X XX XX XX XX (10 digits) or 225XXXXXXXXXX; or a Senegal number: 7X XXX XX XX (9 digits) or 221XXXXXXXXX",
    );
    expect((await attempt({ operator: 'orange', phone: '77 123 45 67', country: 'CI' })).json().error.message).toBe("phone: must be a Côte d'Ivoire number: 0X XX XX XX XX (10 digits) or 225XXXXXXXXXX");
    expect((await attempt({ operator: 'telecel', phone: '07 01 23 45 67' })).json().error.message).toBe("operator: must be one of orange, mtn, moov, wave for a Côte d'Ivoire number");
    expect((await attempt({ operator: 'free', phone: '07 01 23 45 67' })).json().error.message).toBe("operator: must be one of orange, mtn, moov, wave for a Côte d'Ivoire number");
    expect((await attempt({ operator: 'orange', phone: '0241234567', country: 'GH' })).json().error.message).toBe('country: must be one of CI, SN for a XOF session');

    const ok = await attempt({ operator: 'wave', phone: '+225 07 01 23 45 67' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().instructions).toMatchObject({ operator: 'wave', phone_last4: '4567', currency: 'XOF', amount_minor: total });
    expect(ok.body).not.toContain('0701234567');
    const row = await t.database.db.selectFrom('payment_attempts').select(['phone', 'phone_last4']).where('id', '=', ok.json().attempt_reference).executeTakeFirstOrThrow();
    expect(row).toEqual({ phone: '+2250701234567', phone_last4: '4567' });

    // Senegal: a national number needs no country; Free Money is Senegal's.
    const sn = await openSession(t, m, { amount_minor: 5_000, currency: 'XOF' });
    const snTotal = (await quote(sn.id)).momo!.total_minor;
    const res = await startAttempt(t, sn.id, { rail: 'momo', amount_minor: snTotal, operator: 'free', phone: '77 123 45 67' });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('pays a KES session by M-Pesa in the sandbox; the sandbox numbers work in Kenya too', async () => {
    const s = await openSession(t, m, { amount_minor: 150_000, currency: 'KES' });
    expect((await publicSession(t, s.id)).momo_countries).toEqual(['KE']);
    const q = await quote(s.id);
    expect(q.momo).toMatchObject({ fee_minor: 1_500, total_minor: 151_500, currency: 'KES' });
    expect((await startAttempt(t, s.id, { rail: 'momo', amount_minor: q.momo!.total_minor, operator: 'mtn', phone: '0712345678' })).json().error.message).toBe(
      'operator: must be one of mpesa, airtel for a Kenya number',
    );
    const started = await startAttempt(t, s.id, { rail: 'momo', amount_minor: q.momo!.total_minor, operator: 'mpesa', phone: '0712 345678' });
    expect(started.statusCode, started.body).toBe(201);
    expect(started.json().provider).toBe('sandbox_momo_mpesa');
    const done = await authorize(t, s.id, started.json().attempt_reference, '123456');
    expect(done.json()).toMatchObject({ status: 'succeeded', session_status: 'success' });

    // Kenya's payer_declined number declines whatever the code.
    const s2 = await openSession(t, m, { amount_minor: 150_000, currency: 'KES' });
    const declined = await startAttempt(t, s2.id, { rail: 'momo', amount_minor: q.momo!.total_minor, operator: 'airtel', phone: '+254712000001' });
    expect(declined.statusCode, declined.body).toBe(201);
    expect((await authorize(t, s2.id, declined.json().attempt_reference, '123456')).json()).toMatchObject({ status: 'declined', decline_reason: 'payer_declined' });
  });

  describe('the amount cap applies to the session; its quoted total is payable', () => {
    it('a session at the cap is paid by Mobile Money, its fee on top', async () => {
      const s = await openSession(t, m, { amount_minor: MAX_AMOUNT_MINOR });
      const q = await quote(s.id);
      expect(q.momo).toMatchObject({ fee_minor: 2_000, total_minor: MAX_AMOUNT_MINOR + 2_000 });
      const started = await startAttempt(t, s.id, { rail: 'momo', amount_minor: MAX_AMOUNT_MINOR + 2_000, operator: 'mtn', phone: '0241234567' });
      expect(started.statusCode, started.body).toBe(201);
      expect(started.json().amount_charged_minor).toBe(MAX_AMOUNT_MINOR + 2_000);
      expect((await authorize(t, s.id, started.json().attempt_reference, '123456')).json()).toMatchObject({ status: 'succeeded', session_status: 'success' });
    });

    it('a session at the cap is paid by cash slip: issued, recorded by a teller and approved for the quoted total', async () => {
      const s = await openSession(t, m, { amount_minor: MAX_AMOUNT_MINOR });
      const total = (await quote(s.id)).cash!.total_minor;
      expect(total).toBe(MAX_AMOUNT_MINOR + 200);
      const slip = await post(t.app, '/api/v1/checkout/cash-slips', { session_id: s.id, amount_minor: total });
      expect(slip.statusCode, slip.body).toBe(201);
      const branchId = (await t.database.db.selectFrom('branches').select('id').executeTakeFirstOrThrow()).id;
      const teller = await staff(t, 'teller', { branchId });
      const sup = await staff(t, 'supervisor');
      const recorded = await call(t, teller, 'POST', `/cash-slips/${slip.json().slip_token}/deposits`, { amount_minor: total });
      expect(recorded.statusCode, recorded.body).toBe(201);
      const approved = await call(t, sup, 'POST', `/deposits/${recorded.json().deposit.id}/approve`);
      expect(approved.statusCode, approved.body).toBe(200);
      expect(approved.json().deposit).toMatchObject({ status: 'approved', session_status: 'success' });
    });

    it('refuses a session above the cap at creation, and a paid amount above what any quote can reach', async () => {
      const over = await post(t.app, '/api/v1/sessions', { amount_minor: MAX_AMOUNT_MINOR + 1, invoice_ref: 'CAP-OVER' }, { key: m.api_key });
      expectError(over, 400, 'INVALID_ARGUMENT');
      expect(over.json().error.message).toMatch(/^amount_minor: must be at most 100000000000000/);
      const s = await openSession(t, m, { amount_minor: 1_000 });
      const huge = await startAttempt(t, s.id, { rail: 'momo', amount_minor: 3 * MAX_AMOUNT_MINOR + 1, operator: 'mtn', phone: '0241234567' });
      expectError(huge, 400, 'INVALID_ARGUMENT');
    });
  });
});
