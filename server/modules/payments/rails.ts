import type { Transaction } from 'kysely';
import type { Db } from '../../db/database';
import type { Database } from '../../db/schema';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { IdGenerator } from '../../lib/ids';
import { expireDue, expireIfDue, isDue, type TransitionDeps } from '../../domain/session-transitions';
import type { ProviderRegistry, RailProvider } from '../../providers/types';
import type { Rail } from '../../../shared/schemas/common';
import { allowedRails, findSession, sessionMomoCountries, type SessionWithOwner } from './payments.repository';

/**
 * What every payment operation needs, and the rules they share: which rails a session may be
 * paid by, which provider serves a rail in the session's mode, and the lazy expiry.
 */
export interface PaymentsDeps extends TransitionDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Sandbox providers: test sessions only. */
  providers: ProviderRegistry;
  /** BANK_TRANSFER_WINDOW_S (server/config.ts); its default without one. */
  config?: { readonly bankTransferWindowS: number };
  /** Real connectors: live sessions only (none ships yet, so live offers only cash). */
  liveProviders?: ProviderRegistry;
  /** Provider call timeout in ms (server/providers/call.ts). */
  providerTimeoutMs?: number | undefined;
}

type Trx = Transaction<Database>;

export const notPayable = (status: string) =>
  new AppError('SESSION_NOT_PAYABLE', `session is ${status}, not open for payment; refresh the session before continuing`);

/** Thrown inside a transaction that found its session past its time, before it wrote anything. */
class SessionDue extends Error {}

/**
 * `work` in one write transaction on the session as loaded there (`loadFresh`), with the lazy
 * expiry of `expireDue` without its separate read in the common case: the session row the
 * transaction loads anyway says whether it is due. A due one is not expired inside `work`'s
 * transaction (a request that then fails must not roll the expiry back): that transaction is
 * abandoned before any write, the expiry commits in its own, and `work` runs once more.
 */
export async function inFreshSession<T>(deps: PaymentsDeps, sessionId: string, work: (trx: Trx, s: SessionWithOwner) => Promise<T>): Promise<T> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const s = await findSession(trx, sessionId);
      if (isDue(s, deps.clock.now())) throw new SessionDue('session due for expiry');
      return work(trx, s);
    });
  } catch (err) {
    if (!(err instanceof SessionDue)) throw err;
  }
  await expireDue(deps, sessionId);
  return deps.db.transaction().execute(async (trx) => work(trx, await loadFresh(trx, deps, sessionId)));
}

/** Loads a session inside the transaction, expiring it first when its time has passed. */
export async function loadFresh(trx: Trx, deps: PaymentsDeps, sessionId: string): Promise<SessionWithOwner> {
  const s = await findSession(trx, sessionId);
  // Read again only when the session did expire here; an unexpired one is returned as read.
  if (isDue(s, deps.clock.now()) && (await expireIfDue(trx, deps, sessionId))) {
    return findSession(trx, sessionId);
  }
  return s;
}

/**
 * The rails a payer may use: the integration's, and for a live session only those a real
 * connector serves (cash is collected by staff, so it needs none). A sandbox provider never
 * serves live money, and the card test simulation is test-only.
 */
export function payableRails(deps: PaymentsDeps, s: SessionWithOwner): Rail[] {
  const rails = allowedRails(s).filter((r) => r !== 'momo' || servesMomo(s));
  return s.mode === 'test' ? rails : rails.filter((r) => r === 'cash' || (r !== 'card' && deps.liveProviders?.[r] !== undefined));
}

/** False when the integration names the Mobile Money countries it serves and none is the session currency's. */
const servesMomo = (s: SessionWithOwner): boolean => s.momo_countries == null || sessionMomoCountries(s).length > 0;

export function requireRail(deps: PaymentsDeps, s: SessionWithOwner, rail: Rail): void {
  if (!allowedRails(s).includes(rail)) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} is not enabled for this merchant`);
  if (rail === 'momo' && !servesMomo(s)) throw new AppError('RAIL_NOT_ALLOWED', `rail: momo serves none of the ${s.currency} countries for this merchant`);
  if (!payableRails(deps, s).includes(rail)) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} has no live provider on this deployment`);
}

/** The provider of the session's mode: sandbox for test, a real connector for live (never the sandbox). */
export function railProvider(deps: PaymentsDeps, rail: Rail, mode: 'test' | 'live'): RailProvider {
  const p = mode === 'live' ? deps.liveProviders?.[rail] : deps.providers[rail];
  if (!p) throw new AppError('RAIL_NOT_ALLOWED', `rail: ${rail} has no ${mode} provider on this deployment`);
  return p;
}

