import { lazy } from 'react';

/**
 * One screen per rail, each a chunk of its own that the page loads when the payer chooses that
 * rail (or a reload resumes it). The first view (summary and method picker) ships without them,
 * so what a rail's form needs (the card form, the Mobile Money numbers) weighs on that rail only.
 */
export const MomoPayment = lazy(() => import('./momo-payment').then((m) => ({ default: m.MomoPayment })));
export const CardPayment = lazy(() => import('./card-payment').then((m) => ({ default: m.CardPayment })));
export const BankTransferPayment = lazy(() => import('./bank-transfer-payment').then((m) => ({ default: m.BankTransferPayment })));
export const CashPayment = lazy(() => import('./cash-slip').then((m) => ({ default: m.CashPayment })));
