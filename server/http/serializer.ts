import fastJson from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { $ZodType } from 'zod/v4/core';

type CompilerInput = Parameters<typeof zodSerializerCompiler>[0];
type Serialize = (data: unknown) => string;

/**
 * Response serialisation compiled once per route and status. fastify-type-provider-zod
 * runs every response through zod (`safeEncode`) and then `JSON.stringify`; here the route's zod
 * schema is turned into a JSON Schema once (`z.toJSONSchema`, output side) and handed to
 * fast-json-stringify, Fastify's own serializer, which writes the JSON from generated code.
 *
 * A schema JSON Schema cannot express exactly (a transform, a custom check) keeps the zod
 * serializer. fast-json-stringify does not validate: a handler returning a value its schema
 * does not allow is coerced or refused by it, where zod answered a logged 500. So that this can
 * not drift unseen, `verify` (on under NODE_ENV=test, i.e. in every test run and every server a
 * drill spawns) serialises each response both ways and throws when the bytes differ or zod
 * refuses it: every test that reads a response also proves it matches its zod schema.
 */
export function compiledSerializerCompiler(opts: { verify: boolean }) {
  return (input: CompilerInput): Serialize => {
    // Compiled on the first response of that route and status, not at start: ~670 route/status
    // schemas compiled up front cost cold start and idle memory for routes a server may never answer.
    let serialize: Serialize | undefined;
    return (data) => (serialize ??= compile(input, opts.verify))(data);
  };
}

function compile(input: CompilerInput, verify: boolean): Serialize {
  const viaZod = zodSerializerCompiler(input) as Serialize;
  const schema = zodSchemaOf(input.schema);
  if (!schema) return viaZod;
  let fast: Serialize;
  try {
    const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw', cycles: 'throw', reused: 'inline' });
    fast = fastJson(simplify(json) as Parameters<typeof fastJson>[0]) as Serialize;
  } catch {
    return viaZod;
  }
  if (!verify) return fast;
  return (data) => {
    const expected = viaZod(data); // throws ResponseSerializationError when zod refuses the value
    const got = fast(data);
    if (got !== expected) {
      throw new Error(`compiled serializer for ${input.method} ${input.url} ${input.httpStatus} differs from zod's:\n  fast ${got}\n  zod  ${expected}`);
    }
    return got;
  };
}

/** PAYDESK_VERIFY_RESPONSES=1 turns the check on, =0 off; by default it is on under NODE_ENV=test. */
export function verifyResponses(env: NodeJS.ProcessEnv): boolean {
  const flag = env.PAYDESK_VERIFY_RESPONSES;
  return flag === '1' || (flag !== '0' && env.NODE_ENV === 'test');
}

function zodSchemaOf(maybe: unknown): $ZodType | undefined {
  if (maybe instanceof $ZodType) return maybe;
  const props = (maybe as { properties?: unknown } | null)?.properties;
  return props instanceof $ZodType ? props : undefined;
}

/**
 * Drops `required` (see below), and turns `anyOf: [X, {type: 'null'}]` (zod's nullable) becomes `type: [X.type, 'null']` when X is a
 * plain scalar: fast-json-stringify writes a type list directly, while an anyOf makes it try each
 * branch with a validator on every call.
 */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    // fast-json-stringify writes required properties before the optional ones; without the
    // list it keeps the schema's order, which is zod's, so the bytes stay what they were.
    if (k === 'required' && Array.isArray(v)) continue;
    out[k] = simplify(v);
  }
  const anyOf = out.anyOf as Array<Record<string, unknown>> | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2 && Object.keys(out).length === 1) {
    const nul = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = anyOf[1 - nul];
    const scalar = ['string', 'number', 'integer', 'boolean'];
    if (nul >= 0 && other && typeof other.type === 'string' && scalar.includes(other.type) && Object.keys(other).every((key) => ['type', 'format', 'description', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'].includes(key))) {
      const { enum: values, ...rest } = other;
      return { ...rest, type: [other.type, 'null'], ...(Array.isArray(values) ? { enum: [...(values as unknown[]), null] } : {}) };
    }
  }
  return out;
}
