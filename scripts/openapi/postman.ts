/**
 * OpenAPI 3.1 document → Postman collection (format v2.1), so that the collection developers
 * import can never say something the document does not. Pure and deterministic: the same
 * document always gives the same bytes (test/tooling/postman-collection.test.ts relies on it).
 */

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: Json }>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
}
export interface OpenApiInput {
  info: { title: string; description?: string; version: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json> };
}

export const LOCAL_STAGING_URL = 'http://127.0.0.1:4610';
const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

const bearer = (variable: string) => ({ type: 'bearer', bearer: [{ key: 'token', value: `{{${variable}}}`, type: 'string' }] });

/** Postman auth for an operation's security requirement: the first scheme Postman can send. */
function authOf(security: Operation['security']): Json {
  if (!security || security.length === 0) return { type: 'noauth' };
  const schemes = security.flatMap((s) => Object.keys(s));
  if (schemes.includes('apiKey')) return bearer('apiKey');
  // The staff cookie needs nothing here: Postman keeps the cookie sign-in sets.
  if (schemes.includes('staffToken')) return bearer('staffToken');
  return { type: 'noauth' };
}

/** Example values by field name where a blank would not show what the field wants. */
const EXAMPLES: Record<string, unknown> = { invoice_ref: 'INV-2026-0042', amount_minor: 18500, merchant_name: 'Accra Water Company' };

/** A plausible example value for a schema: required fields only, enums' first value, minimums. */
export function exampleOf(schema: Json | undefined, doc: OpenApiInput, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  const ref = schema.$ref;
  if (typeof ref === 'string') return exampleOf(doc.components?.schemas?.[ref.split('/').pop()!], doc, depth + 1);
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const branch = (branches as Json[]).find((b) => b.type !== 'null');
      return exampleOf(branch, doc, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(Object.entries(properties).filter(([name]) => required.has(name)).map(([name, s]) => [name, EXAMPLES[name] ?? exampleOf(s, doc, depth + 1)]));
    }
    case 'array':
      return (schema.minItems as number | undefined) ? [exampleOf(schema.items as Json, doc, depth + 1)] : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0;
    case 'boolean':
      return false;
    case 'string':
      if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
      if (schema.format === 'uri') return 'https://shop.example.com/return';
      if (schema.format === 'email') return 'payer@example.com';
      return '';
    default:
      return Object.keys(schema).length === 0 ? {} : null; // `{}` accepts anything: show an object to fill in
  }
}

function requestOf(method: string, path: string, op: Operation, doc: OpenApiInput): Json {
  const segments = path.split('/').filter(Boolean).map((s) => s.replace(/^\{(.+)\}$/, ':$1'));
  const params = op.parameters ?? [];
  const query = params
    .filter((p) => p.in === 'query')
    .map((p) => ({ key: p.name, value: '', description: p.description ?? '', disabled: !p.required }));
  const variable = params.filter((p) => p.in === 'path').map((p) => ({ key: p.name, value: '', description: p.description ?? '' }));
  const enabledQuery = query.filter((q) => !q.disabled).map((q) => `${q.key}=`);
  const url: Json = {
    raw: `{{baseUrl}}/${segments.join('/')}${enabledQuery.length ? `?${enabledQuery.join('&')}` : ''}`,
    host: ['{{baseUrl}}'],
    path: segments,
  };
  if (query.length) url.query = query;
  if (variable.length) url.variable = variable;
  const request: Json = { method: method.toUpperCase(), header: [] as Json[], auth: authOf(op.security), url };
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) {
    request.header = [{ key: 'Content-Type', value: 'application/json' }];
    request.body = { mode: 'raw', raw: JSON.stringify(exampleOf(body, doc), null, 2), options: { raw: { language: 'json' } } };
  }
  request.description = [op.description ?? op.summary ?? '', `operationId: \`${op.operationId}\``].filter(Boolean).join('\n\n');
  return request;
}

/** Keeps the staff token sign-in returns, so the other back-office requests are signed in. */
const SIGN_IN_SCRIPT = [
  'const body = pm.response.json();',
  "if (body && body.token) pm.collectionVariables.set('staffToken', body.token);",
];

export function toPostmanCollection(doc: OpenApiInput): Json {
  const folders = new Map<string, Json[]>();
  for (const tag of doc.tags ?? []) folders.set(tag.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'Other';
      const entry: Json = { name: op.summary ?? op.operationId, request: requestOf(method, path, op, doc) };
      if (op.operationId === 'signInStaff') entry.event = [{ listen: 'test', script: { type: 'text/javascript', exec: SIGN_IN_SCRIPT } }];
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag)!.push(entry);
    }
  }
  const descriptions = new Map((doc.tags ?? []).map((t) => [t.name, t.description ?? '']));
  return {
    info: {
      name: `${doc.info.title} (${doc.info.version})`,
      description: `${doc.info.description ?? ''}\n\nGenerated from the OpenAPI document by \`npm run collection\`; do not edit by hand.`,
      schema: POSTMAN_SCHEMA,
    },
    item: [...folders].filter(([, items]) => items.length).map(([name, items]) => ({ name, description: descriptions.get(name) ?? '', item: items })),
    variable: [
      { key: 'baseUrl', value: LOCAL_STAGING_URL, type: 'string' },
      { key: 'apiKey', value: '', type: 'string' },
      { key: 'staffToken', value: '', type: 'string' },
    ],
  };
}

/** Postman environment for a staging instance on this machine (`npm run serve`). */
export function localStagingEnvironment(): Json {
  return {
    name: 'Paydesk local staging',
    values: [
      { key: 'baseUrl', value: LOCAL_STAGING_URL, type: 'default', enabled: true },
      { key: 'apiKey', value: '', type: 'secret', enabled: true },
      { key: 'staffToken', value: '', type: 'secret', enabled: true },
    ],
    _postman_variable_scope: 'environment',
  };
}

/** The bytes written to disk: stable two-space JSON with a final newline. */
export const toFileText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
