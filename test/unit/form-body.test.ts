import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceToSchema, nestFormFields, parseUrlEncoded } from '../../server/http/form-body';
import { CheckoutSessionCreate, InvoiceLineInput, RevenueLineSyncRequest } from '../../shared/schemas/merchant';

describe('parseUrlEncoded', () => {
  it('nests customer[name], metadata[key] and lines[0][code]', () => {
    const body = parseUrlEncoded('amount_minor=100&customer%5Bname%5D=Ama+Mensah&customer[email]=a%40b.co&metadata[order]=7&lines[0][code]=W&lines[0][amount_minor]=5&lines[1][code]=P');
    expect(body).toEqual({
      amount_minor: '100',
      customer: { name: 'Ama Mensah', email: 'a@b.co' },
      metadata: { order: '7' },
      lines: [{ code: 'W', amount_minor: '5' }, { code: 'P' }],
    });
  });

  it('never lets a field reach Object.prototype', () => {
    const body = parseUrlEncoded('constructor[prototype][polluted]=yes&a=1');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(body.a).toBe('1');
  });

  it('refuses a __proto__ segment naming the object that would hold it, as for JSON bodies', () => {
    expect(() => parseUrlEncoded('__proto__[polluted]=yes&a=1')).toThrow('body: key "__proto__" is not allowed');
    expect(() => parseUrlEncoded('metadata%5B__proto__%5D%5Bx%5D=1')).toThrow('metadata: key "__proto__" is not allowed');
    expect(() => nestFormFields({ 'lines[2][__proto__]': 'x' })).toThrow('lines[2]: key "__proto__" is not allowed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps indexes past 1000 as an object that coerceToSchema turns back into an ordered array', () => {
    const body = parseUrlEncoded('lines[1005][code]=B&lines[3][code]=A');
    const coerced = coerceToSchema(RevenueLineSyncRequest, body) as { lines: Array<{ code: string }> };
    expect(coerced.lines.map((l) => l.code)).toEqual(['A', 'B']);
  });
});

describe('nestFormFields (multipart key-values)', () => {
  it('nests bracketed field names like urlencoded bodies', () => {
    expect(nestFormFields({ 'customer[name]': 'Kofi', 'lines[0][code]': 'W', 'metadata[k]': 'v', invoice_ref: 'INV' })).toEqual({
      customer: { name: 'Kofi' },
      lines: [{ code: 'W' }],
      metadata: { k: 'v' },
      invoice_ref: 'INV',
    });
  });

  it('drops uploaded files (Buffers)', () => {
    expect(nestFormFields({ invoice_ref: 'INV', upload: Buffer.from('file'), many: [Buffer.from('a'), Buffer.from('b')] })).toEqual({ invoice_ref: 'INV' });
  });
});

describe('coerceToSchema', () => {
  it('turns numeric and boolean strings into what the schema expects, through optional, default and nested objects', () => {
    const out = coerceToSchema(CheckoutSessionCreate, {
      amount_minor: ' 2500 ',
      invoice_ref: '0042',
      expires_in_seconds: '600',
      currency: 'ghs',
      customer: { name: '123', email: 'x@example.com' },
      metadata: { n: '5' },
    });
    expect(out).toEqual({
      amount_minor: 2500,
      invoice_ref: '0042', // strings stay strings, even when they look like numbers
      expires_in_seconds: 600,
      currency: 'ghs',
      customer: { name: '123', email: 'x@example.com' },
      metadata: { n: '5' }, // free-form values are kept as sent
    });
    expect(CheckoutSessionCreate.parse(out)).toMatchObject({ amount_minor: 2500, currency: 'GHS', expires_in_seconds: 600 });
  });

  it('reads form booleans: true/false, 1/0, on/off', () => {
    for (const [text, value] of [['true', true], ['1', true], ['on', true], ['TRUE', true], ['false', false], ['0', false], ['off', false]] as const) {
      expect(coerceToSchema(RevenueLineSyncRequest, { lines: [], deactivate_missing: text })).toEqual({ lines: [], deactivate_missing: value });
    }
    expect(coerceToSchema(RevenueLineSyncRequest, { lines: [], deactivate_missing: 'yes' })).toEqual({ lines: [], deactivate_missing: 'yes' });
  });

  it('treats an empty optional field as absent', () => {
    const out = coerceToSchema(CheckoutSessionCreate, { amount_minor: '1', invoice_ref: 'I', description: '', expires_in_seconds: '' }) as Record<string, unknown>;
    expect(out.description).toBeUndefined();
    expect(out.expires_in_seconds).toBeUndefined();
    expect(CheckoutSessionCreate.safeParse(out).success).toBe(true);
  });

  it('leaves strings that are not plain decimal numbers for validation to refuse', () => {
    for (const text of ['12abc', '1e3', '0x10', '', ' ', '1,000']) {
      const out = coerceToSchema(InvoiceLineInput, { code: 'W', amount_minor: text }) as { amount_minor: unknown };
      expect(out.amount_minor, text).toBe(text);
      expect(InvoiceLineInput.safeParse(out).success, text).toBe(false);
    }
    // Decimals and negatives become numbers, then fail the integer and minimum rules.
    expect(coerceToSchema(InvoiceLineInput, { code: 'W', amount_minor: '2.5' })).toEqual({ code: 'W', amount_minor: 2.5 });
    expect(coerceToSchema(InvoiceLineInput, { code: 'W', amount_minor: '-3' })).toEqual({ code: 'W', amount_minor: -3 });
  });

  it('coerces every element of an array and leaves other shapes alone', () => {
    const schema = z.object({ xs: z.array(z.number()), flag: z.boolean().optional() });
    expect(coerceToSchema(schema, { xs: ['1', '2'], flag: '0' })).toEqual({ xs: [1, 2], flag: false });
    expect(coerceToSchema(schema, { xs: 'not-an-array' })).toEqual({ xs: 'not-an-array' });
    expect(coerceToSchema(schema, 'text')).toBe('text');
    expect(coerceToSchema(undefined, { a: '1' })).toEqual({ a: '1' });
  });

  it('does not change a JSON-typed body', () => {
    const body = { amount_minor: 5, invoice_ref: 'I', customer: { name: 'A' } };
    expect(coerceToSchema(CheckoutSessionCreate, body)).toEqual(body);
  });
});
