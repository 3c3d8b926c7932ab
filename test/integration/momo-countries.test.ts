import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { get } from '../support/http';
import { expectError, openSession, publicSession, quoteTotal, sessionUrl, startAttempt } from '../support/checkout';
import { call, staff, type Staff } from '../support/backoffice';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

type View = { integrations: { integration_id: string; momo_countries: string[] | null }[] };

/**
 * A session's currency and its integration decide the countries its payer picks from: an admin
 * names the countries an integration serves (default: every country of the session's currency),
 * the checkout offers only those, and the server refuses a Mobile Money attempt outside them.
 */
describe('the Mobile Money countries an integration serves', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  let admin: Staff;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('Bouaké Distribution');
    admin = await staff(t, 'admin');
  });
  afterAll(async () => t.close());

  const setCountries = (momo_countries: unknown, who: Staff = admin) => call(t, who, 'POST', `/admin/integrations/${m.integration_id}/momo-countries`, { momo_countries });
  const served = (res: { json: () => unknown }) => (res.json() as View).integrations.find((i) => i.integration_id === m.integration_id)!.momo_countries;

  it('defaults to every country of the session’s currency', async () => {
    const list = await call(t, admin, 'GET', '/admin/integrations');
    expect(served(list)).toBeNull();
    const xof = await openSession(t, m, { amount_minor: 5_000, currency: 'XOF' });
    expect((await publicSession(t, xof.id)).momo_countries).toEqual(['CI', 'SN']);
  });

  it('is set by an admin only, validated (the error names the field) and audited', async () => {
    for (const [body, field] of [
      [['XX'], 'momo_countries'],
      [[], 'momo_countries'],
      ['CI', 'momo_countries'],
    ] as const) {
      const res = await setCountries(body);
      const err = expectError(res, 400, 'INVALID_ARGUMENT');
      expect(err.message).toContain(field);
    }
    const missing = await call(t, admin, 'POST', `/admin/integrations/${m.integration_id}/momo-countries`, {});
    expect(expectError(missing, 400, 'INVALID_ARGUMENT').message).toContain('momo_countries');
    expectError(await setCountries(['CI'], await staff(t, 'supervisor')), 403, 'FORBIDDEN');
    expectError(await call(t, admin, 'POST', '/admin/integrations/nope/momo-countries', { momo_countries: ['CI'] }), 404, 'NOT_FOUND');

    // Kept in the table's order whatever order is sent, each country once.
    const set = await setCountries(['CI', 'GH', 'CI']);
    expect(set.statusCode, set.body).toBe(200);
    expect(served(set)).toEqual(['GH', 'CI']);

    const audit = await call(t, admin, 'GET', `/audit?action=integration.set_momo_countries&target_id=${m.integration_id}`);
    expect(audit.statusCode, audit.body).toBe(200);
    const [entry] = (audit.json() as { entries: { actor: { username: string }; before: unknown; after: unknown }[] }).entries;
    expect(entry).toMatchObject({ actor: { username: admin.username }, before: { momo_countries: null }, after: { momo_countries: ['GH', 'CI'] } });
  });

  it('offers the payer only the countries served, and refuses a country, number or network outside them with 400 naming the field', async () => {
    expect(served(await setCountries(['GH', 'CI']))).toEqual(['GH', 'CI']);
    const xof = await openSession(t, m, { amount_minor: 5_000, currency: 'XOF' });
    expect((await publicSession(t, xof.id)).momo_countries).toEqual(['CI']);
    const total = await quoteTotal(t, xof.id, 'momo');
    const attempt = (body: Record<string, unknown>) => startAttempt(t, xof.id, { rail: 'momo', amount_minor: total, ...body });

    const senegal = expectError(await attempt({ operator: 'orange', phone: '77 123 45 67', country: 'SN' }), 400, 'INVALID_ARGUMENT');
    expect(senegal.message).toBe('country: must be one of CI for a XOF session');
    const senegalNumber = expectError(await attempt({ operator: 'orange', phone: '77 123 45 67' }), 400, 'INVALID_ARGUMENT');
    expect(senegalNumber.message).toBe("phone: must be a Côte d'Ivoire number: 0X XX XX XX XX (10 digits) or 225XXXXXXXXXX");
    const senegalNetwork = expectError(await attempt({ operator: 'free', phone: '07 01 23 45 67' }), 400, 'INVALID_ARGUMENT');
    expect(senegalNetwork.message).toBe("operator: must be one of orange, mtn, moov, wave for a Côte d'Ivoire number");
    expect((await get(t.app, sessionUrl(xof.id))).json().status).toBe('open'); // nothing started

    const ok = await attempt({ operator: 'orange', phone: '07 01 23 45 67', country: 'CI' });
    expect(ok.statusCode, ok.body).toBe(201);

    // The finance timeline names the network as people know it, never its code.
    const detail = await call(t, admin, 'GET', `/sessions/${xof.id}`);
    expect(detail.statusCode, detail.body).toBe(200);
    const started = (detail.json() as { timeline: { title: string; detail: string }[] }).timeline.find((e) => e.title === 'Mobile Money attempt started');
    expect(started?.detail).toMatch(/ · Orange Money number ending 4567$/);
  });

  it('replays a pending attempt whose phone was stored before E.164 (233…, 024…), whatever spelling the retry uses', async () => {
    for (const [stored, retried] of [
      ['233241234567', '0241234567'],
      ['0241234567', '024 123 4567'],
      ['233241234567', '+233 24 123 4567'],
    ] as const) {
      const s = await openSession(t, m, { amount_minor: 10_000 });
      const total = await quoteTotal(t, s.id, 'momo');
      const first = await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234567' });
      expect(first.statusCode, first.body).toBe(201);
      const ref = (first.json() as { attempt_reference: string }).attempt_reference;
      // As a row written before numbers were normalised holds it.
      await t.database.db.updateTable('payment_attempts').set({ phone: stored }).where('id', '=', ref).execute();

      const replay = await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: retried });
      expect(replay.statusCode, `${stored} / ${retried}: ${replay.body}`).toBe(200);
      expect(replay.json()).toMatchObject({ attempt_reference: ref, replayed: true, instructions: { mode: 'mobile_money_prompt', rail: 'momo' } });
      // Another number is not a replay: the session is pending, so it is refused.
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'mtn', phone: '0241234568' }), 409, 'SESSION_NOT_PAYABLE');
      // Nor is another network for the same number.
      expectError(await startAttempt(t, s.id, { rail: 'momo', amount_minor: total, operator: 'telecel', phone: retried }), 409, 'SESSION_NOT_PAYABLE');
    }
  });

  it('takes Mobile Money off a session whose currency has no country served; null serves every country again', async () => {
    expect(served(await setCountries(['GH']))).toEqual(['GH']);
    const xof = await openSession(t, m, { amount_minor: 5_000, currency: 'XOF' });
    const view = await publicSession(t, xof.id);
    expect(view.momo_countries).toEqual([]);
    expect(view.allowed_rails).toEqual(['card', 'bank_transfer', 'cash']);
    const quote = await get(t.app, `${sessionUrl(xof.id)}/quote`);
    expect(Object.keys((quote.json() as { surcharges: object }).surcharges)).toEqual(['card', 'bank_transfer', 'cash']);
    const refused = expectError(await startAttempt(t, xof.id, { rail: 'momo', amount_minor: 5_050, operator: 'orange', phone: '07 01 23 45 67' }), 400, 'RAIL_NOT_ALLOWED');
    expect(refused.message).toMatch(/^rail: /);
    // A GHS session of the same integration is unaffected.
    const ghs = await openSession(t, m, { amount_minor: 10_000 });
    expect((await publicSession(t, ghs.id)).momo_countries).toEqual(['GH']);

    expect(served(await setCountries(null))).toBeNull();
    expect((await publicSession(t, xof.id)).momo_countries).toEqual(['CI', 'SN']);
  });
});
