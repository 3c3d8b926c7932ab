/**
 * The OpenAPI facts of every documented route, in one table so that route files stay about
 * behaviour and no route can be documented without an operationId, a security requirement
 * and its error answers. server/http/openapi.ts applies it while the document is generated
 * and refuses to generate a document for a route missing here (test/tooling/openapi-*.test.ts).
 *
 * operationId naming rule (docs/openapi.md): lowerCamelCase, a verb then the domain noun, as
 * the services name them (`createCheckoutSession`, `approveDeposit`). Verbs: `list` (a
 * collection), `get` (one thing), `create`, `record`, `sync`, and the domain's own verbs
 * (`approve`, `revoke`, `rotate` …). A back-office view of something the merchant API also
 * reads names its area (`listFinanceSessions`). An operationId never changes once published:
 * rename the summary, never the id.
 */

/** Who may call an operation: the merchant's API key, nobody in particular, or a signed-in staff member. */
export type OperationAuth = 'merchant' | 'public' | 'staff';

export interface OperationDoc {
  readonly operationId: string;
  readonly auth: OperationAuth;
  /** 4xx/5xx statuses this operation answers beyond those its auth and body imply (server/http/openapi.ts). */
  readonly errors?: readonly number[];
  /** Success answer for a route that declares no response schema. */
  readonly success?: { readonly status: number; readonly description: string; readonly contentType?: string };
}

const ok = (description: string) => ({ status: 200, description });
// The administration writes answer the whole view they changed, as the back office shows it.
const INTEGRATIONS_VIEW = 'Merchants with their integrations, key prefixes, endpoints, rails and fee rules (as changed)';
const BANKS_VIEW = 'Banks with their branches (as changed)';
const STAFF_VIEW = 'Staff users (as changed)';

/** Keyed by `METHOD /path` with OpenAPI path templates (`{reference}`). */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  // ------------------------------------------------------------------ merchant API
  'POST /api/v1/revenue-lines': { operationId: 'syncRevenueLines', auth: 'merchant' },
  'GET /api/v1/revenue-lines': { operationId: 'listRevenueLines', auth: 'merchant' },
  'POST /api/v1/invoice-lines': { operationId: 'recordInvoiceLines', auth: 'merchant' },
  'GET /api/v1/invoice-lines': { operationId: 'listInvoiceLines', auth: 'merchant' },
  'POST /api/v1/sessions': { operationId: 'createCheckoutSession', auth: 'merchant' },
  'GET /api/v1/sessions/{reference}': { operationId: 'getCheckoutSession', auth: 'merchant' },

  // ------------------------------------------------------------------ hosted checkout (no credential)
  'GET /api/v1/checkout/options': { operationId: 'getCheckoutOptions', auth: 'public' },
  'GET /api/v1/checkout/sessions/{reference}': { operationId: 'getPublicSession', auth: 'public' },
  'GET /api/v1/checkout/sessions/{reference}/quote': { operationId: 'getPublicQuote', auth: 'public' },
  'POST /api/v1/checkout/sessions/{reference}/provider-attempts': { operationId: 'createProviderAttempt', auth: 'public' },
  'GET /api/v1/checkout/sessions/{reference}/provider-attempts/{attempt_reference}': { operationId: 'getProviderAttempt', auth: 'public' },
  'POST /api/v1/checkout/sessions/{reference}/provider-attempts/{attempt_reference}/authorize': { operationId: 'authorizeProviderAttempt', auth: 'public' },
  'POST /api/v1/checkout/sessions/{reference}/provider-attempts/{attempt_reference}/resend': { operationId: 'resendProviderAttemptCode', auth: 'public' },
  'POST /api/v1/checkout/sessions/{reference}/card-payments': { operationId: 'createCardPayment', auth: 'public' },
  'POST /api/v1/checkout/cash-slips': { operationId: 'createCashSlip', auth: 'public' },

  // ------------------------------------------------------------------ back office: sign-in
  'POST /api/backoffice/v1/auth/login': { operationId: 'signInStaff', auth: 'public', errors: [401] },
  'POST /api/backoffice/v1/auth/logout': { operationId: 'signOutStaff', auth: 'staff' },
  'GET /api/backoffice/v1/me': { operationId: 'getCurrentStaff', auth: 'staff' },
  'POST /api/backoffice/v1/auth/password': { operationId: 'changeOwnPassword', auth: 'staff' },
  'POST /api/backoffice/v1/me/language': { operationId: 'setOwnLanguage', auth: 'staff' },
  'GET /api/backoffice/v1/setup': { operationId: 'getFirstRunSetup', auth: 'public' },
  'POST /api/backoffice/v1/setup': { operationId: 'createFirstAdmin', auth: 'public', errors: [401, 409] },

  // ------------------------------------------------------------------ back office: cash desk
  'GET /api/backoffice/v1/cash-slips/{slip_token}': { operationId: 'getCashSlip', auth: 'staff' },
  'POST /api/backoffice/v1/cash-slips/{slip_token}/deposits': { operationId: 'recordDeposit', auth: 'staff' },
  'GET /api/backoffice/v1/deposits': { operationId: 'listDeposits', auth: 'staff' },
  'GET /api/backoffice/v1/deposits/facets': { operationId: 'listDepositFacets', auth: 'staff' },
  'GET /api/backoffice/v1/cash-desk/shift-total': { operationId: 'getShiftTotal', auth: 'staff' },
  'GET /api/backoffice/v1/cash-desk/cash-up': { operationId: 'getTellerCashUp', auth: 'staff' },
  'POST /api/backoffice/v1/cash-desk/cash-up/float': { operationId: 'setCashUpFloat', auth: 'staff' },
  'POST /api/backoffice/v1/cash-desk/cash-up/count': { operationId: 'recordCashUpCount', auth: 'staff' },
  'POST /api/backoffice/v1/cash-desk/cash-up/sign': { operationId: 'signCashUp', auth: 'staff' },
  'GET /api/backoffice/v1/cash-ups': { operationId: 'listCashUps', auth: 'staff' },
  'GET /api/backoffice/v1/cash-ups/{cash_up_id}': { operationId: 'getCashUp', auth: 'staff' },
  'POST /api/backoffice/v1/cash-ups/{cash_up_id}/sign-off': { operationId: 'signOffCashUp', auth: 'staff' },
  'GET /api/backoffice/v1/deposits/{deposit_id}': { operationId: 'getDeposit', auth: 'staff' },
  'POST /api/backoffice/v1/deposits/{deposit_id}/approve': { operationId: 'approveDeposit', auth: 'staff' },
  'POST /api/backoffice/v1/deposits/{deposit_id}/reject': { operationId: 'rejectDeposit', auth: 'staff' },
  'GET /api/backoffice/v1/audit': { operationId: 'listAuditEntries', auth: 'staff' },
  'GET /api/backoffice/v1/audit/export.csv': {
    operationId: 'exportAuditEntries',
    auth: 'staff',
    success: { status: 200, description: 'The filtered audit trail as CSV (RFC 4180), oldest first, action in words, target by name', contentType: 'text/csv' },
  },

  // ------------------------------------------------------------------ back office: finance
  'GET /api/backoffice/v1/merchants': { operationId: 'listMerchants', auth: 'staff' },
  'GET /api/backoffice/v1/overview': { operationId: 'getFinanceOverview', auth: 'staff' },
  'GET /api/backoffice/v1/revenue-lines': { operationId: 'listFinanceRevenueLines', auth: 'staff' },
  'POST /api/backoffice/v1/revenue-lines/{line_id}/activate': { operationId: 'activateRevenueLine', auth: 'staff' },
  'POST /api/backoffice/v1/revenue-lines/{line_id}/deactivate': { operationId: 'deactivateRevenueLine', auth: 'staff' },
  'GET /api/backoffice/v1/invoices': { operationId: 'listInvoices', auth: 'staff' },
  'GET /api/backoffice/v1/invoices/{invoice_ref}': { operationId: 'getInvoice', auth: 'staff' },
  'GET /api/backoffice/v1/sessions': { operationId: 'listFinanceSessions', auth: 'staff' },
  'GET /api/backoffice/v1/sessions/{session_id}': { operationId: 'getFinanceSession', auth: 'staff' },
  'GET /api/backoffice/v1/reports/payments.csv': {
    operationId: 'exportPayments',
    auth: 'staff',
    success: { status: 200, description: 'The payments as CSV (RFC 4180), one row per payment', contentType: 'text/csv' },
  },
  'POST /api/backoffice/v1/reports/payments-exports': { operationId: 'startPaymentsExport', auth: 'staff', errors: [409] },
  'GET /api/backoffice/v1/reports/payments-exports/{export_id}': { operationId: 'getPaymentsExport', auth: 'staff' },
  'POST /api/backoffice/v1/reports/payments-exports/{export_id}/cancel': { operationId: 'cancelPaymentsExport', auth: 'staff', errors: [409] },
  'GET /api/backoffice/v1/reports/payments-exports/{export_id}/file': {
    operationId: 'downloadPaymentsExport',
    errors: [409],
    auth: 'staff',
    success: { status: 200, description: 'The completed export as CSV (RFC 4180), the same bytes as GET /reports/payments.csv', contentType: 'text/csv' },
  },
  'GET /api/backoffice/v1/exceptions': { operationId: 'listFinanceExceptions', auth: 'staff' },
  'GET /api/backoffice/v1/exception-items': { operationId: 'listExceptionItems', auth: 'staff' },
  'POST /api/backoffice/v1/exception-items/{invoice_ref}/review': { operationId: 'reviewExceptionItem', auth: 'staff' },
  'GET /api/backoffice/v1/work-counts': { operationId: 'getWorkCounts', auth: 'staff' },
  'GET /api/backoffice/v1/reports/exceptions.csv': {
    operationId: 'exportFinanceExceptions',
    auth: 'staff',
    success: { status: 200, description: 'The finance exceptions as CSV (RFC 4180), one row per exception', contentType: 'text/csv' },
  },

  // ------------------------------------------------------------------ back office: administration
  'GET /api/backoffice/v1/admin/integrations': { operationId: 'listIntegrations', auth: 'staff', success: ok(INTEGRATIONS_VIEW) },
  'POST /api/backoffice/v1/admin/integrations': { operationId: 'createIntegration', auth: 'staff' },
  'POST /api/backoffice/v1/admin/integrations/{integration_id}/api-keys': { operationId: 'createApiKey', auth: 'staff' },
  'POST /api/backoffice/v1/admin/api-keys/{key_id}/revoke': { operationId: 'revokeApiKey', auth: 'staff', success: ok('The revoked key') },
  'POST /api/backoffice/v1/admin/integrations/{integration_id}/webhook-endpoints': { operationId: 'createWebhookEndpoint', auth: 'staff' },
  'POST /api/backoffice/v1/admin/integrations/{integration_id}/rails': { operationId: 'setAllowedRails', auth: 'staff', success: ok(INTEGRATIONS_VIEW) },
  'POST /api/backoffice/v1/admin/integrations/{integration_id}/momo-countries': { operationId: 'setMomoCountries', auth: 'staff', success: ok(INTEGRATIONS_VIEW) },
  'POST /api/backoffice/v1/admin/integrations/{integration_id}/fee-rules': { operationId: 'setFeeRule', auth: 'staff', success: ok(INTEGRATIONS_VIEW) },
  'GET /api/backoffice/v1/admin/banks': { operationId: 'listBanks', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/banks': { operationId: 'createBank', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/banks/{bank_id}/branches': { operationId: 'createBranch', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/branches/{branch_id}/activate': { operationId: 'activateBranch', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/branches/{branch_id}/deactivate': { operationId: 'deactivateBranch', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/banks/{bank_id}/activate': { operationId: 'activateBank', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/banks/{bank_id}/deactivate': { operationId: 'deactivateBank', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/banks/{bank_id}/rename': { operationId: 'renameBank', auth: 'staff', success: ok(BANKS_VIEW) },
  'POST /api/backoffice/v1/admin/branches/{branch_id}/rename': { operationId: 'renameBranch', auth: 'staff', success: ok(BANKS_VIEW) },
  'GET /api/backoffice/v1/admin/staff': { operationId: 'listStaff', auth: 'staff', success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/staff': { operationId: 'createStaff', auth: 'staff' },
  'POST /api/backoffice/v1/admin/staff/{staff_id}/disable': { operationId: 'disableStaff', auth: 'staff', success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/staff/{staff_id}/enable': { operationId: 'enableStaff', auth: 'staff', success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/staff/{staff_id}/full-name': { operationId: 'setStaffFullName', auth: 'staff', success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/staff/{staff_id}/reset-password': { operationId: 'resetStaffPassword', auth: 'staff', errors: [409], success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/staff/{staff_id}/role': { operationId: 'changeStaffRole', auth: 'staff', errors: [409], success: ok(STAFF_VIEW) },
  'POST /api/backoffice/v1/admin/sandbox/bank-transfers': { operationId: 'confirmSandboxBankTransfer', auth: 'staff' },

  // ------------------------------------------------------------------ back office: webhooks
  'GET /api/backoffice/v1/webhooks/attempts': { operationId: 'listWebhookAttempts', auth: 'staff' },
  'GET /api/backoffice/v1/webhooks/deliveries': { operationId: 'listWebhookDeliveries', auth: 'staff' },
  'GET /api/backoffice/v1/webhooks/deliveries/{delivery_id}': { operationId: 'getWebhookDelivery', auth: 'staff' },
  'POST /api/backoffice/v1/webhooks/events/{event_id}/redeliver': { operationId: 'redeliverWebhookEvent', auth: 'staff' },
  'POST /api/backoffice/v1/webhooks/recover': { operationId: 'recoverWebhookDeliveries', auth: 'staff' },
  'GET /api/backoffice/v1/webhooks/endpoints/health': { operationId: 'listWebhookEndpointHealth', auth: 'staff' },
  'POST /api/backoffice/v1/webhooks/endpoints/{endpoint_id}/rotate-secret': { operationId: 'rotateWebhookSecret', auth: 'staff' },
  'POST /api/backoffice/v1/webhooks/endpoints/{endpoint_id}/disable': { operationId: 'disableWebhookEndpoint', auth: 'staff' },
  'POST /api/backoffice/v1/webhooks/endpoints/{endpoint_id}/enable': { operationId: 'enableWebhookEndpoint', auth: 'staff' },
};

/** Tag descriptions, in the order the document lists them. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'Revenue lines', description: 'Merchant API: the service codes invoices are billed under.' },
  { name: 'Invoice lines', description: 'Merchant API: the lines of an invoice, by invoice reference.' },
  { name: 'Checkout sessions', description: 'Merchant API: create a session, send the payer to its checkout_url, look it up.' },
  { name: 'Hosted checkout', description: 'What the hosted checkout page calls, with no credential: a session reference is the capability.' },
  { name: 'Back office: staff sign-in', description: 'Staff sign-in and the signed-in staff member.' },
  { name: 'Back office: cash desk', description: 'Tellers record cash deposits; supervisors approve or reject them.' },
  { name: 'Back office: cash-up', description: "Tellers balance their drawer (float, count by denomination, difference) and sign it; a different supervisor signs it off." },
  { name: 'Back office: audit', description: 'The append-only trail of staff actions.' },
  { name: 'Back office: finance', description: 'Revenue lines, invoices, sessions and the reconciliation export.' },
  { name: 'Back office: administration', description: 'Integrations, keys, endpoints, rails, fees, banks and staff (admins only).' },
  { name: 'Back office: webhooks', description: 'The delivery log, redelivery, recovery and endpoint management.' },
];
