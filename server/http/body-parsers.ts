import Busboy from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, formatPath } from '../lib/errors';

/** Deepest nesting of arrays and objects a JSON body may have (docs/merchant-api.md, "Request bodies"). */
export const MAX_JSON_DEPTH = 64;

/** Object keys refused anywhere in a JSON body: they rewrite prototypes when code merges objects. */
const FORBIDDEN_KEYS = new Set(['__proto__']);

const malformedJson = () => new AppError('INVALID_ARGUMENT', 'body: malformed JSON');
const tooDeep = () => new AppError('INVALID_ARGUMENT', `body: nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);

/**
 * Depth of the deepest array/object in a JSON text, stopping as soon as it passes the limit.
 * Done on the text, before JSON.parse, so that no recursive code (ours, zod's, a serializer's)
 * ever sees a pathologically deep value and runs out of stack.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return false; // unterminated: JSON.parse refuses it
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Path of the first object holding a forbidden key, e.g. `metadata` or `lines[0]`; undefined when none. */
function forbiddenKeyAt(value: unknown, path: PropertyKey[]): { path: PropertyKey[]; key: string } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (!item || typeof item !== 'object') continue;
      path.push(i);
      const hit = forbiddenKeyAt(item, path);
      path.pop();
      if (hit) return hit;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return { path: [...path], key };
    const child = (value as Record<string, unknown>)[key];
    if (!child || typeof child !== 'object') continue;
    path.push(key);
    const hit = forbiddenKeyAt(child, path);
    path.pop();
    if (hit) return hit;
  }
  return undefined;
}

/**
 * JSON bodies: depth-limited, and a `__proto__` key (valid JSON, but a prototype-pollution
 * vector for any code that copies the object) is refused naming the object that holds it,
 * e.g. `metadata: key "__proto__" is not allowed`. Recursion in the key scan is bounded by
 * MAX_JSON_DEPTH, checked first.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new AppError('INVALID_ARGUMENT', 'body: a JSON body is required when Content-Type is application/json');
  if (jsonDepthExceeds(text)) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformedJson();
  }
  const hit = forbiddenKeyAt(value, []);
  if (hit) throw new AppError('INVALID_ARGUMENT', `${formatPath(hit.path) || 'body'}: key "${hit.key}" is not allowed`);
  return value;
}

const badMultipart = (why: string) => new AppError('INVALID_ARGUMENT', `body: malformed multipart/form-data (${why})`);

/**
 * The most fields a form body (urlencoded or multipart) may carry, and the most characters all
 * their names may add up to. Counted before anything is parsed: parsing and nesting thousands of
 * fields cost seconds of CPU on the event loop (a 1 MiB multipart body of 16,000 names blocked
 * it 0.2-1.6 s), while 100 fields of any size parse in a few milliseconds. A body with more
 * fields (a long list of invoice lines) is sent as JSON.
 */
export const MAX_FORM_FIELDS = 100;
export const MAX_FORM_NAME_CHARS = 8192;
/** Longest single field name (bytes) in a multipart body. */
const MAX_FIELD_NAME_BYTES = 256;

export const tooManyFields = () => new AppError('INVALID_ARGUMENT', `body: a form body may carry at most ${MAX_FORM_FIELDS} fields; send a longer one as application/json`);
export const namesTooLong = () => new AppError('INVALID_ARGUMENT', `body: the field names of a form body may add up to at most ${MAX_FORM_NAME_CHARS} characters`);

/** How many times `needle` occurs in `body`, counting no further than `stopAt`. */
function countUpTo(body: Buffer, needle: Buffer, stopAt: number): number {
  let n = 0;
  for (let at = body.indexOf(needle); at >= 0 && n < stopAt; at = body.indexOf(needle, at + needle.length)) n++;
  return n;
}

const boundaryOf = (type: string): string | undefined => {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  return m ? (m[1] ?? m[2]) : undefined;
};

/**
 * multipart/form-data, read whole (Fastify counts the bytes as they arrive and answers 413 as
 * soon as the body limit is passed, chunked or not), its parts counted (MAX_FORM_FIELDS) and
 * then split into text fields by busboy, whose own limits hold the names (MAX_FORM_NAME_CHARS)
 * and the part count again. Uploaded files are dropped; repeated names become arrays, as
 * browsers send them.
 */
async function parseMultipartBody(req: FastifyRequest, body: Buffer): Promise<Record<string, unknown>> {
  const type = req.headers['content-type'] ?? '';
  const boundary = boundaryOf(type);
  if (!boundary) throw badMultipart('the Content-Type has no boundary');
  if (body.length === 0) return {};
  // Each part opens with the delimiter, and one more closes the body.
  if (countUpTo(body, Buffer.from(`--${boundary}`), MAX_FORM_FIELDS + 2) > MAX_FORM_FIELDS + 1) throw tooManyFields();
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  await new Promise<void>((resolve, reject) => {
    let failed: AppError | undefined;
    let names = 0;
    let sawPart = false;
    const fail = (err: AppError) => {
      failed ??= err;
    };
    const bb = Busboy({
      headers: { 'content-type': type },
      limits: { fields: MAX_FORM_FIELDS, parts: MAX_FORM_FIELDS, fieldNameSize: MAX_FIELD_NAME_BYTES, fieldSize: body.length },
    });
    bb.on('field', (name: string, value: string, nameTruncated: boolean) => {
      sawPart = true;
      if (nameTruncated || (names += name.length) > MAX_FORM_NAME_CHARS) return fail(namesTooLong());
      const prior = fields[name];
      if (prior === undefined) fields[name] = value;
      else if (Array.isArray(prior)) prior.push(value);
      else fields[name] = [prior, value];
    });
    bb.on('file', (_name: string, stream: NodeJS.ReadableStream) => {
      sawPart = true;
      stream.resume(); // an uploaded file: ignored
    });
    bb.on('fieldsLimit', () => fail(tooManyFields()));
    bb.on('partsLimit', () => fail(tooManyFields()));
    bb.on('error', () => fail(badMultipart('the body does not match the boundary in the Content-Type')));
    bb.on('finish', () => {
      if (!failed && !sawPart) failed = badMultipart('the body does not match the boundary in the Content-Type');
      return failed ? reject(failed) : resolve();
    });
    try {
      bb.end(body);
    } catch {
      reject(badMultipart('the body does not match the boundary in the Content-Type'));
    }
  });
  return { ...fields };
}

/** Replaces Fastify's JSON parser and registers the multipart one; both read at most `bodyLimit` bytes. */
export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, async (req: FastifyRequest, body: string | Buffer) => {
    // Routes that take no body (`resend`, `approve`, `logout`): many clients still send
    // `Content-Type: application/json` with an empty one. Accept that instead of a 400.
    if (body.length === 0 && req.routeOptions.schema?.body === undefined) return undefined;
    return parseJsonBody(String(body));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit }, async (req: FastifyRequest, body: string | Buffer) =>
    parseMultipartBody(req, Buffer.isBuffer(body) ? body : Buffer.from(body)),
  );
}
