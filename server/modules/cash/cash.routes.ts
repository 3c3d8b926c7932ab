import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../deps';
import { ErrorEnvelope } from '../../../shared/schemas/common';
import { CashDepositSlipCreate, CashDepositSlipResponse } from '../../../shared/schemas/checkout';
import {
  CashDeposit,
  DepositReviewed,
  DepositFacets,
  DepositIdParams,
  DepositList,
  DepositListQuery,
  DepositRecord,
  DepositReject,
  DepositResult,
  ScannedSlip,
  ShiftTotal,
  ShiftTotalQuery,
  SlipTokenParams,
} from '../../../shared/schemas/backoffice';
import { allow, requireStaff, staffErrors } from '../auth';
import type { PaymentsDeps } from '../payments';
import { approveDeposit, lookupSlip, recordDeposit, rejectDeposit } from './cash.service';
import { depositFacets, getDeposit, listDeposits, shiftTotal } from './deposit-lists';
import { createCashSlip } from './slips';
import { getCashUp, listCashUps, supervisorSign, tellerDay, tellerSign, writeCashUp } from './cash-up';
import {
  CashUp,
  CashUpCount,
  CashUpDay,
  CashUpFloat,
  CashUpIdParams,
  CashUpList,
  CashUpListQuery,
  CashUpQuery,
  CashUpResult,
  CashUpSupervisorSign,
  CashUpTellerSign,
} from '../../../shared/schemas/cash-up';

const errors = staffErrors;

/**
 * The cash desk of the back office (`/api/backoffice/v1`): slips as scanned,
 * deposits recorded by tellers and reviewed by supervisors, the teller's shift total.
 * Registered by backofficeRoutes inside its scope, so its staff sign-in hook guards them.
 */
export async function cashDeskRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // ------------------------------------------------------------ cash desk
  const deskTags = ['Back office: cash desk'];
  r.get(
    '/cash-slips/:slip_token',
    {
      preValidation: allow('teller', 'supervisor'),
      schema: { tags: deskTags, summary: 'A cash slip as scanned: by its token, or by its printed reference (any case, dashes and spaces optional)', params: SlipTokenParams, response: { 200: ScannedSlip, ...errors } },
    },
    async (req) => lookupSlip(deps, req.params.slip_token),
  );
  r.post(
    '/cash-slips/:slip_token/deposits',
    {
      preValidation: allow('teller'),
      schema: {
        tags: deskTags,
        summary: 'Record the counted cash for a slip (the session becomes pending until a supervisor reviews it)',
        params: SlipTokenParams,
        body: DepositRecord,
        response: { 201: DepositResult, ...errors },
      },
    },
    async (req, reply) => reply.code(201).send(await recordDeposit(deps, requireStaff(req), req.ip, req.params.slip_token, req.body)),
  );
  r.get(
    '/deposits',
    {
      preValidation: allow('teller', 'supervisor', 'admin'),
      schema: {
        tags: deskTags,
        summary: 'Deposits (status=under_review: the review queue, oldest first); tellers see their own',
        querystring: DepositListQuery,
        response: { 200: DepositList, ...errors },
      },
    },
    async (req) => listDeposits(deps.db, requireStaff(req), req.query, deps.config.listTotalCap),
  );
  r.get(
    '/deposits/facets',
    {
      preValidation: allow('teller', 'supervisor', 'admin'),
      schema: { tags: deskTags, summary: 'Tellers and branches that have recorded deposits (the review filters)', response: { 200: DepositFacets, ...errors } },
    },
    async (req) => depositFacets(deps.db, requireStaff(req)),
  );
  r.get(
    '/cash-desk/shift-total',
    {
      preValidation: allow('teller'),
      schema: {
        tags: deskTags,
        summary: "The signed-in teller's cash-up: deposits they recorded on one day (server time zone; today by default), by review state",
        querystring: ShiftTotalQuery,
        response: { 200: ShiftTotal, ...errors },
      },
    },
    async (req) => shiftTotal(deps, requireStaff(req), req.query.date),
  );
  // ------------------------------------------------------------ cash-up (the drawer balanced)
  const cashUpTags = ['Back office: cash-up'];
  r.get(
    '/cash-desk/cash-up',
    {
      preValidation: allow('teller'),
      schema: {
        tags: cashUpTags,
        summary: "The signed-in teller's cash-ups of one day (server time zone; today by default), one per currency: float, count, expected, difference, deposits, sign-offs",
        querystring: CashUpQuery,
        response: { 200: CashUpDay, ...errors },
      },
    },
    async (req) => tellerDay(deps, requireStaff(req), req.query.date, req.query.currency),
  );
  r.post(
    '/cash-desk/cash-up/float',
    {
      preValidation: allow('teller'),
      schema: { tags: cashUpTags, summary: 'Enter the opening float of the day, as an amount or by denomination (until the teller signs)', body: CashUpFloat, response: { 200: CashUpResult, ...errors } },
    },
    async (req) => ({ cash_up: await writeCashUp(deps, requireStaff(req), req.ip, req.body, 'float') }),
  );
  r.post(
    '/cash-desk/cash-up/count',
    {
      preValidation: allow('teller'),
      schema: { tags: cashUpTags, summary: 'Store the count of the drawer by denomination (until the teller signs)', body: CashUpCount, response: { 200: CashUpResult, ...errors } },
    },
    async (req) => ({ cash_up: await writeCashUp(deps, requireStaff(req), req.ip, req.body, 'count') }),
  );
  r.post(
    '/cash-desk/cash-up/sign',
    {
      preValidation: allow('teller'),
      schema: {
        tags: cashUpTags,
        summary: "The teller signs their count: it and the day's figures are frozen, and the drawer takes no more deposits in that currency that day",
        body: CashUpTellerSign,
        response: { 200: CashUpResult, ...errors },
      },
    },
    async (req) => ({ cash_up: await tellerSign(deps, requireStaff(req), req.ip, req.body) }),
  );
  r.get(
    '/cash-ups',
    {
      preValidation: allow('supervisor', 'admin'),
      schema: { tags: cashUpTags, summary: 'Cash-ups by state (default: signed by the teller, waiting for a supervisor), oldest day first', querystring: CashUpListQuery, response: { 200: CashUpList, ...errors } },
    },
    async (req) => listCashUps(deps, requireStaff(req), req.query),
  );
  r.get(
    '/cash-ups/:cash_up_id',
    {
      preValidation: allow('teller', 'supervisor', 'admin'),
      schema: { tags: cashUpTags, summary: 'One cash-up (a teller sees their own)', params: CashUpIdParams, response: { 200: CashUp, ...errors } },
    },
    async (req) => getCashUp(deps, requireStaff(req), req.params.cash_up_id),
  );
  r.post(
    '/cash-ups/:cash_up_id/sign-off',
    {
      preValidation: allow('supervisor'),
      schema: {
        tags: cashUpTags,
        summary: 'A supervisor signs off a cash-up the teller signed, with an optional note (never their own count)',
        params: CashUpIdParams,
        body: CashUpSupervisorSign,
        response: { 200: CashUpResult, ...errors },
      },
    },
    async (req) => ({ cash_up: await supervisorSign(deps, requireStaff(req), req.ip, req.params.cash_up_id, req.body.note) }),
  );
  r.get(
    '/deposits/:deposit_id',
    {
      preValidation: allow('teller', 'supervisor', 'admin'),
      schema: { tags: deskTags, summary: 'One deposit', params: DepositIdParams, response: { 200: CashDeposit, ...errors } },
    },
    async (req) => getDeposit(deps.db, requireStaff(req), req.params.deposit_id),
  );
  r.post(
    '/deposits/:deposit_id/approve',
    {
      preValidation: allow('supervisor'),
      schema: {
        tags: deskTags,
        summary: 'Approve a deposit (never by its recorder): the session succeeds',
        params: DepositIdParams,
        response: { 200: DepositReviewed, ...errors },
      },
    },
    async (req) => ({ deposit: await approveDeposit(deps, requireStaff(req), req.ip, req.params.deposit_id) }),
  );
  r.post(
    '/deposits/:deposit_id/reject',
    {
      preValidation: allow('supervisor'),
      schema: {
        tags: deskTags,
        summary: 'Reject a deposit with a reason (never by its recorder): the slip is voided and the session reopens',
        params: DepositIdParams,
        body: DepositReject,
        response: { 200: DepositReviewed, ...errors },
      },
    },
    async (req) => ({ deposit: await rejectDeposit(deps, requireStaff(req), req.ip, req.params.deposit_id, req.body.reason) }),
  );
}

const checkoutErrors = { 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope, 503: ErrorEnvelope };

/** The payer's slip (`POST /api/v1/checkout/cash-slips`), registered beside checkoutRoutes in the checkout scope (server/routes.ts). */
export async function cashSlipRoutes(app: FastifyInstance, deps: PaymentsDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Hosted checkout'];
  r.post(
    '/cash-slips',
    {
      schema: {
        tags,
        summary: 'Issue (or re-show) the cash deposit slip of an open session',
        body: CashDepositSlipCreate,
        response: { 200: CashDepositSlipResponse, 201: CashDepositSlipResponse, ...checkoutErrors },
      },
    },
    async (req, reply) => {
      const result = await createCashSlip(deps, req.body.session_id, req.body.amount_minor);
      return reply.code(result.status).send(result.body);
    },
  );
}
