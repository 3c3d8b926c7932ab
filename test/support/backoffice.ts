import type { LightMyRequestResponse } from 'fastify';
import { randomIds } from '../../server/lib/ids';
import { createStaff } from '../../server/modules/auth/staff.service';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';
import type { TestContext } from './app';

export const BO = '/api/backoffice/v1';
export const PASSWORD = 'correct horse battery';

let n = 0;

export interface Staff {
  id: string;
  username: string;
  role: string;
  token: string;
}

/** Creates a staff user through the same service as `staff:create` and signs it in over HTTP. */
export async function staff(
  t: TestContext,
  role: 'teller' | 'supervisor' | 'finance' | 'admin',
  opts: { merchantId?: string; branchId?: string | null } = {},
): Promise<Staff> {
  const username = `${role}${++n}_${Date.now() % 100000}`;
  // A teller works at a branch (one without cannot record deposits): the first seeded branch
  // unless the test names one, or `branchId: null` for a teller an administrator has not placed yet.
  const branchId = opts.branchId === undefined && role === 'teller' ? (await t.database.db.selectFrom('branches').select('id').orderBy('code').executeTakeFirstOrThrow()).id : (opts.branchId ?? undefined);
  const user = await createStaff(t.database.db, t.clock, randomIds, { username, password: PASSWORD, role, merchantId: opts.merchantId, branchId });
  const res = await t.app.inject({ method: 'POST', url: `${BO}/auth/login`, payload: { username, password: PASSWORD } });
  if (res.statusCode !== 200) throw new Error(`login failed ${res.statusCode}: ${res.body}`);
  return { ...user, token: (res.json() as { token: string }).token };
}

export function call(t: TestContext, who: Staff | string | null, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const token = who === null ? undefined : typeof who === 'string' ? who : who.token;
  return t.app.inject({
    method,
    url: `${BO}${url}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

export interface Slip {
  slip_token: string;
  reference: string;
  amount_minor: number;
  session_id: string;
}

/** A merchant session with an issued cash slip, created over the merchant and public APIs. */
export async function sessionWithSlip(
  t: TestContext,
  m: CreatedIntegration,
  amount = 10_000,
  invoiceRef = `INV-${++n}`,
  expiresInSeconds = 86_400,
): Promise<Slip> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/v1/sessions',
    headers: { authorization: `Bearer ${m.api_key}` },
    payload: { amount_minor: amount, invoice_ref: invoiceRef, customer: { name: 'Ama Mensah' }, description: 'Water bill', expires_in_seconds: expiresInSeconds },
  });
  if (created.statusCode !== 201) throw new Error(`session: ${created.body}`);
  const sessionId = (created.json() as { id: string }).id;
  const quote = await t.app.inject({ method: 'GET', url: `/api/v1/checkout/sessions/${sessionId}/quote` });
  const total = (quote.json() as { surcharges: { cash: { total_minor: number } } }).surcharges.cash.total_minor;
  const slip = await t.app.inject({ method: 'POST', url: '/api/v1/checkout/cash-slips', payload: { session_id: sessionId, amount_minor: total } });
  if (slip.statusCode !== 201) throw new Error(`slip: ${slip.body}`);
  const body = slip.json() as { slip_token: string; reference: string; amount_minor: number };
  return { ...body, session_id: sessionId };
}

export async function sessionStatus(t: TestContext, m: CreatedIntegration, id: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1/sessions/${id}`, headers: { authorization: `Bearer ${m.api_key}` } });
  return (res.json() as { status: string }).status;
}

export function errorCode(res: LightMyRequestResponse): string {
  const body = res.json() as { error?: { code?: string; message?: string } };
  if (!body.error?.code || typeof body.error.message !== 'string') throw new Error(`not an error envelope (${res.statusCode}): ${res.body}`);
  return body.error.code;
}
