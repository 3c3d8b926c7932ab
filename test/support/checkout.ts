import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext } from './app';
import { envelope, get, post } from './http';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { Rail } from '../../shared/schemas/common';

/** Helpers for the hosted-checkout tests: everything goes through HTTP except reading the DB. */
export const CHECKOUT = '/api/v1/checkout';
export const sessionUrl = (id: string) => `${CHECKOUT}/sessions/${id}`;
export const attemptUrl = (id: string, attempt: string) => `${CHECKOUT}/sessions/${id}/provider-attempts/${attempt}`;

let invoiceCounter = 0;
export const uniqueInvoice = (prefix = 'INV') => `${prefix}-${process.pid}-${++invoiceCounter}-${Date.now()}`;

export interface OpenedSession {
  id: string;
  amount_minor: number;
  invoice_ref: string;
  expires_at: string;
  checkout_url: string;
}

/** Creates a session through the merchant API (POST /api/v1/sessions). */
export async function openSession(t: TestContext, m: CreatedIntegration, body: Record<string, unknown> = {}): Promise<OpenedSession> {
  const res = await post(t.app, '/api/v1/sessions', { amount_minor: 10_000, invoice_ref: uniqueInvoice(), ...body }, { key: m.api_key });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as OpenedSession;
}

export async function quoteTotal(t: TestContext, id: string, rail: Rail): Promise<number> {
  const res = await get(t.app, `${sessionUrl(id)}/quote`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { surcharges: Record<string, { total_minor: number }> }).surcharges[rail]!.total_minor;
}

export function startAttempt(t: TestContext, id: string, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return post(t.app, `${sessionUrl(id)}/provider-attempts`, body);
}

/** Starts a Mobile Money attempt for the quoted total; asserts 201 and returns the body. */
export async function startMomo(t: TestContext, id: string, phone = '0241234567', operator = 'mtn') {
  const amount = await quoteTotal(t, id, 'momo');
  const res = await startAttempt(t, id, { rail: 'momo', amount_minor: amount, operator, phone });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { attempt_reference: string; amount_charged_minor: number; instructions: Record<string, unknown>; status: string };
}

export const authorize = (t: TestContext, id: string, attempt: string, code: string) => post(t.app, `${attemptUrl(id, attempt)}/authorize`, { code });
export const resend = (t: TestContext, id: string, attempt: string) => t.app.inject({ method: 'POST', url: `${attemptUrl(id, attempt)}/resend` });
export const status = (t: TestContext, id: string, attempt: string, refresh = false) => get(t.app, `${attemptUrl(id, attempt)}${refresh ? '?refresh=1' : ''}`);

export async function payByCard(t: TestContext, id: string, cardNumber: string, extra: Record<string, unknown> = {}) {
  const amount = await quoteTotal(t, id, 'card');
  return post(t.app, `${sessionUrl(id)}/card-payments`, { amount_minor: amount, card_number: cardNumber, expiry_month: 12, expiry_year: 2099, cvc: '123', ...extra });
}

export const publicSession = async (t: TestContext, id: string) => {
  const res = await get(t.app, sessionUrl(id));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown> & { status: string };
};

export const events = (t: TestContext, sessionId: string) =>
  t.database.db.selectFrom('events').selectAll().where('session_id', '=', sessionId).orderBy('created_at').execute();

export const history = (t: TestContext, sessionId: string) =>
  t.database.db.selectFrom('session_history').select(['from_status', 'to_status', 'cause']).where('session_id', '=', sessionId).orderBy('at').execute();

export const sessionRow = (t: TestContext, id: string) => t.database.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Asserts an error answer: status, envelope and code; returns the envelope's error. */
export function expectError(res: LightMyRequestResponse, statusCode: number, code: string) {
  expect(res.statusCode, res.body).toBe(statusCode);
  const err = envelope(res);
  expect(err.code).toBe(code);
  return err;
}

/** Sets an integration's allowed rails directly in the DB (the back office edits them later). */
export async function setAllowedRails(t: TestContext, integrationId: string, rails: Rail[]): Promise<void> {
  await t.database.db.updateTable('integrations').set({ allowed_rails: JSON.stringify(rails) }).where('id', '=', integrationId).execute();
}

export async function setFeeRule(
  t: TestContext,
  integrationId: string,
  rail: Rail,
  rule: { percent_bps: number; fixed_minor: number; cap_minor: number | null; bearer: 'payer' | 'merchant' },
  currency = 'GHS',
): Promise<void> {
  const now = new Date().toISOString();
  await t.database.db
    .insertInto('fee_rules')
    .values({ id: `${integrationId}-${currency}-${rail}`, integration_id: integrationId, rail, currency, ...rule, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['integration_id', 'currency', 'rail']).doUpdateSet({ ...rule, updated_at: now }))
    .execute();
}
