import { useMemo } from 'react';
import { useT, type T } from '../../../ui/i18n';

/**
 * Codes in words, in the staff member's language: payment methods, record states, roles and
 * webhook events. shared/labels.ts keeps the English wording the server writes into CSV
 * exports; screens name codes through these. Each code maps to a literal message id (the
 * catalogue test checks every one exists). A code without words (a newer server) reads as
 * itself.
 */
export interface Labels {
  /** "cash" → "Cash" / "Espèces"; a missing rail is a dash. */
  rail(code: string | null | undefined): string;
  /** A checkout session's state ("failed" is a checkout closed without payment). */
  sessionStatus(code: string): string;
  /** A cash deposit's review state. */
  depositStatus(code: string): string;
  /** A cash slip's state. */
  slipStatus(code: string): string;
  /** An invoice's payments in one word. */
  invoicePayment(code: string): string;
  /** A finance exception's state. */
  exceptionStatus(code: string): string;
  /** A staff role. */
  role(code: string): string;
  /** A webhook event type (`checkout.session.completed`). */
  event(code: string): string;
  /** Any state a badge shows without a kind (active, revoked, failed…). */
  state(code: string): string;
}

const pick = (words: Readonly<Record<string, string>>, code: string): string => words[code] ?? code;

const railWords = (t: T): Readonly<Record<string, string>> => ({
  momo: t('common.rail.momo'),
  card: t('common.rail.card'),
  bank_transfer: t('common.rail.bank_transfer'),
  cash: t('common.rail.cash'),
});
const sessionWords = (t: T): Readonly<Record<string, string>> => ({
  open: t('common.sessionStatus.open'),
  pending: t('common.sessionStatus.pending'),
  success: t('common.sessionStatus.success'),
  failed: t('common.sessionStatus.failed'),
  expired: t('common.sessionStatus.expired'),
});
const depositWords = (t: T): Readonly<Record<string, string>> => ({
  under_review: t('common.depositStatus.under_review'),
  approved: t('common.depositStatus.approved'),
  rejected: t('common.depositStatus.rejected'),
});
const slipWords = (t: T): Readonly<Record<string, string>> => ({
  active: t('common.slipStatus.active'),
  under_review: t('common.slipStatus.under_review'),
  used: t('common.slipStatus.used'),
  voided: t('common.slipStatus.voided'),
  expired: t('common.slipStatus.expired'),
});
const invoiceWords = (t: T): Readonly<Record<string, string>> => ({
  nothing_billed: t('common.invoicePayment.nothing_billed'),
  not_paid: t('common.invoicePayment.not_paid'),
  part_paid: t('common.invoicePayment.part_paid'),
  paid: t('common.invoicePayment.paid'),
  overpaid: t('common.invoicePayment.overpaid'),
});
const exceptionWords = (t: T): Readonly<Record<string, string>> => ({
  open: t('common.exceptionStatus.open'),
  resolved: t('common.exceptionStatus.resolved'),
  ignored: t('common.exceptionStatus.ignored'),
});
const roleWords = (t: T): Readonly<Record<string, string>> => ({
  teller: t('common.role.teller'),
  supervisor: t('common.role.supervisor'),
  finance: t('common.role.finance'),
  admin: t('common.role.admin'),
});
const eventWords = (t: T): Readonly<Record<string, string>> => ({
  'checkout.session.completed': t('common.event.completed'),
  'checkout.session.failed': t('common.event.failed'),
  'checkout.session.expired': t('common.event.expired'),
});
const stateWords = (t: T): Readonly<Record<string, string>> => ({
  success: t('common.state.success'),
  approved: t('common.state.approved'),
  succeeded: t('common.state.succeeded'),
  active: t('common.state.active'),
  used: t('common.state.used'),
  remitted: t('common.state.remitted'),
  pending: t('common.state.pending'),
  under_review: t('common.state.under_review'),
  open: t('common.state.open'),
  failed: t('common.state.failed'),
  rejected: t('common.state.rejected'),
  declined: t('common.state.declined'),
  voided: t('common.state.voided'),
  disabled: t('common.state.disabled'),
  revoked: t('common.state.revoked'),
  expired: t('common.state.expired'),
  inactive: t('common.state.inactive'),
});

/** The labels with a given `t` (helpers outside components). */
export function labelsWith(t: T): Labels {
  const rails = railWords(t);
  const sessions = sessionWords(t);
  const deposits = depositWords(t);
  const slips = slipWords(t);
  const invoices = invoiceWords(t);
  const exceptions = exceptionWords(t);
  const roles = roleWords(t);
  const events = eventWords(t);
  const states = stateWords(t);
  return {
    rail: (code) => (code ? pick(rails, code) : '—'),
    sessionStatus: (code) => pick(sessions, code),
    depositStatus: (code) => pick(deposits, code),
    slipStatus: (code) => pick(slips, code),
    invoicePayment: (code) => pick(invoices, code),
    exceptionStatus: (code) => pick(exceptions, code),
    role: (code) => pick(roles, code),
    event: (code) => pick(events, code),
    state: (code) => pick(states, code),
  };
}

/** `const labels = useLabels(); labels.rail('cash')`. */
export function useLabels(): Labels {
  const t = useT();
  return useMemo(() => labelsWith(t), [t]);
}
