import type { SwaggerOptions, SwaggerTransformObject } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorEnvelope } from '../../shared/schemas/common';
import { OPERATIONS, TAGS, type OperationAuth, type OperationDoc } from './openapi-operations';
// The cookie the back office's sign-in sets (the cookie security scheme names it).


const SECURITY: Record<OperationAuth, ReadonlyArray<Record<string, string[]>>> = {
  merchant: [{ apiKey: [] }],
  public: [],
  // Either credential: the bearer token from sign-in, or the session cookie the browser holds.
  staff: [{ staffToken: [] }, { staffSession: [] }],
};

/** 4xx statuses every operation of an auth kind can answer (the route's own and the table's come on top). */
const AUTH_ERRORS: Record<OperationAuth, readonly number[]> = {
  merchant: [400, 401, 404, 429],
  public: [400, 404, 429],
  staff: [400, 401, 403, 404, 429],
};
/** Every route with a body can refuse it for its size or its media type before validation. */
const BODY_ERRORS = [413, 415];

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the message names the field (INVALID_ARGUMENT)',
  401: 'Missing, unknown or revoked credential (UNAUTHORIZED)',
  403: "The caller's role may not do this (FORBIDDEN)",
  404: 'No such thing for this caller (NOT_FOUND)',
  409: 'Conflicts with the current state; the code says which',
  413: 'Body over 1 MiB (PAYLOAD_TOO_LARGE)',
  415: 'Content-Type other than JSON, urlencoded or multipart (UNSUPPORTED_MEDIA_TYPE)',
  422: 'Idempotency-Key reused with another request (IDEMPOTENCY_KEY_REUSED)',
  429: 'Over the rate limit: retry after retry_after_seconds (RATE_LIMITED)',
  503: 'The payment provider is unavailable; retry later',
};

/** `/a/:id/b` → `/a/{id}/b`: the table is keyed the way readers of the document see paths. */
const openApiPath = (fastifyUrl: string) => fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

class UndocumentedRouteError extends Error {}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; body?: unknown; hide?: boolean };
type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

function errorResponse(status: number) {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: ErrorEnvelope } },
  };
}

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  207: 'Applied in part: the refused lines are listed in `errors`',
};

/** A declared success schema with a description (a bare zod schema would say "Default Response"). */
function successResponse(status: string, value: unknown): unknown {
  const description = SUCCESS_DESCRIPTIONS[status] ?? 'Success';
  if (value instanceof z.ZodNull) return value.describe(description);
  if (!(value instanceof z.ZodType)) return value; // already a response object with its own description
  return { description, content: { 'application/json': { schema: value } } };
}

/** The route's schema with the table's facts added: operationId, security, error answers, a 2xx answer. */
function documentedSchema(method: string, url: string, schema: RouteSchema): RouteSchema {
  const key = `${method} ${openApiPath(url)}`;
  const op: OperationDoc | undefined = OPERATIONS[key];
  if (!op) {
    throw new UndocumentedRouteError(
      `route ${key} has no entry in server/http/openapi-operations.ts: give it an operationId and its auth (or hide it with schema.hide)`,
    );
  }
  const declared = schema.response ?? {};
  const response: Record<string, unknown> = {};
  const statuses = new Set<number>([...AUTH_ERRORS[op.auth], ...(schema.body ? BODY_ERRORS : []), ...(op.errors ?? [])]);
  for (const [status, value] of Object.entries(declared)) {
    if (Number(status) >= 400) statuses.add(Number(status));
    else response[status] = successResponse(status, value);
  }
  if (!Object.keys(response).some((s) => s.startsWith('2'))) {
    const success = op.success ?? { status: 200, description: 'Success' };
    const contentType = success.contentType ?? 'application/json';
    response[String(success.status)] = {
      description: success.description,
      content: { [contentType]: { schema: contentType === 'application/json' ? z.unknown() : z.string() } },
    };
  }
  for (const status of [...statuses].sort()) response[String(status)] = errorResponse(status);
  return { ...schema, operationId: op.operationId, security: SECURITY[op.auth], response };
}

/**
 * Swagger options: the document's header, and the per-route and whole-document transforms.
 * `staffCookie`: the name of the staff session cookie (the auth module sets it).
 */
export function swaggerOptions(baseUrl: () => string, staffCookie: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Paydesk merchant checkout and invoicing API',
        version: '2026-06',
        description:
          'Merchant API (Bearer API key), hosted-checkout API (no credential) and back-office API (staff sign-in). Amounts are integers in minor units. See docs/ in the repository for transitions, sandbox inputs and error codes; docs/openapi.md for how this document is built.',
      },
      tags: [...TAGS],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Merchant API key: `ak_test_…`' },
          staffToken: { type: 'http', scheme: 'bearer', description: 'Staff token from POST /api/backoffice/v1/auth/login' },
          staffSession: { type: 'apiKey', in: 'cookie', name: staffCookie, description: 'Staff session cookie (HttpOnly) set by the back-office sign-in when it sends x-paydesk-csrf: 1; unsafe calls made with it must send that header too (CSRF)' },
        },
      },
    },
    transform: (input: TransformInput) => {
      const schema = input.schema as RouteSchema | undefined;
      if (!schema || schema.hide) return jsonSchemaTransform(input);
      const method = String(input.route.method);
      return jsonSchemaTransform({ ...input, schema: documentedSchema(method, input.url, schema) as TransformInput['schema'] });
    },
    transformObject: (input) => {
      const doc = jsonSchemaTransformObject(input as Parameters<typeof jsonSchemaTransformObject>[0]) as Record<string, unknown> & {
        components?: { schemas?: Record<string, unknown> };
      };
      // The zod provider emits an input and an output variant of each registered schema;
      // keep only the ones the document refers to (an unused component is a lint warning).
      const text = JSON.stringify(doc.paths ?? {});
      const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).filter(([name]) => text.includes(`"#/components/schemas/${name}"`)));
      // Generated lazily on the first request, when the listening address is known.
      return { ...doc, servers: [{ url: baseUrl(), description: 'This Paydesk instance' }], components: { ...doc.components, schemas } } as ReturnType<SwaggerTransformObject>;
    },
  };
}
