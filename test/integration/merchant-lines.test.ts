import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { ENCODINGS, envelope, get, post, type Encoding } from '../support/http';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

const REVENUE = '/api/v1/revenue-lines';
const INVOICE = '/api/v1/invoice-lines';

describe('revenue lines: POST (sync) and GET (list)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    m = await t.merchant();
  });
  afterAll(async () => t.close());

  const sync = (body: unknown, encoding: Encoding = 'json') => post(t.app, REVENUE, body, { key: m.api_key, encoding });
  const list = (query = '') => get(t.app, `${REVENUE}${query}`, m.api_key);

  it('creates, then reports unchanged, updated, deactivated and reactivated codes', async () => {
    const first = await sync({ lines: [{ code: 'WATER', name: 'Water' }, { code: 'POWER', name: 'Electricity' }, { code: 'WASTE', name: 'Refuse' }] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ object: 'revenue_lines.sync', created: 3, updated: 0, reactivated: 0, deactivated: 0, unchanged: 0, total: 3, errors: [] });

    // deactivate_missing defaults to false: absent codes stay active.
    const second = await sync({ lines: [{ code: 'WATER', name: 'Water' }, { code: 'POWER', name: 'Power' }] });
    expect(second.json()).toMatchObject({ created: 0, updated: 1, unchanged: 1, deactivated: 0, total: 2 });
    expect((await list()).json().counts).toEqual({ total: 3, active: 3, inactive: 0 });

    const third = await sync({ lines: [{ code: 'WATER', name: 'Water' }], deactivate_missing: true });
    expect(third.json()).toMatchObject({ created: 0, updated: 0, unchanged: 1, deactivated: 2, reactivated: 0, total: 1 });

    const active = (await list()).json();
    expect(active).toMatchObject({ object: 'list', counts: { total: 3, active: 1, inactive: 2 } });
    expect(active.lines.map((l: { code: string }) => l.code)).toEqual(['WATER']);
    const all = (await list('?include_inactive=true')).json();
    expect(all.lines.map((l: { code: string; active: boolean }) => [l.code, l.active])).toEqual([
      ['POWER', false],
      ['WASTE', false],
      ['WATER', true],
    ]);
    expect((await list('?include_inactive=false')).json().lines).toHaveLength(1);
    expect((await list('?include_inactive=1')).json().lines).toHaveLength(3);

    const fourth = await sync({ lines: [{ code: 'POWER', name: 'Power (new)' }] });
    expect(fourth.json()).toMatchObject({ reactivated: 1, created: 0, updated: 0, unchanged: 0, deactivated: 0, total: 1 });
    const power = (await list()).json().lines.find((l: { code: string }) => l.code === 'POWER');
    expect(power).toMatchObject({ code: 'POWER', name: 'Power (new)', active: true, source: 'sync', merchant_id: m.merchant_id });
    expect(power.id).toMatch(/^[0-9a-f-]{36}$/);
    for (const f of ['last_synced_at', 'created_at', 'updated_at']) expect(Number.isNaN(Date.parse(power[f]))).toBe(false);
  });

  it('answers 207 with per-line errors and still syncs the good lines; total counts every line sent', async () => {
    const res = await sync({
      lines: [{ code: 'OK1', name: 'Fine' }, { code: '', name: 'No code' }, { name: 'Missing code' }, { code: 'OK1', name: 'Again' }, 'junk', { code: 'C'.repeat(65), name: 'x' }, { code: 'OK2', name: 'Also fine' }],
    });
    expect(res.statusCode).toBe(207);
    const body = res.json();
    expect(body).toMatchObject({ object: 'revenue_lines.sync', created: 2, total: 7 });
    expect(body.errors.map((e: { index: number; code: string; field: string }) => [e.index, e.code, e.field])).toEqual([
      [1, 'INVALID_ARGUMENT', 'lines[1].code'],
      [2, 'INVALID_ARGUMENT', 'lines[2].code'],
      [3, 'DUPLICATE_LINE', 'lines[3].code'],
      [4, 'INVALID_ARGUMENT', 'lines[4]'],
      [5, 'INVALID_ARGUMENT', 'lines[5].code'],
    ]);
    for (const e of body.errors) expect(e.message.startsWith(`${e.field}: `)).toBe(true);
    expect((await list()).json().lines.map((l: { code: string }) => l.code)).toEqual(['OK1', 'OK2']);
  });

  it('does not deactivate a code whose line had an error', async () => {
    await sync({ lines: [{ code: 'KEEP', name: 'Keep' }, { code: 'DROP', name: 'Drop' }] });
    const res = await sync({ lines: [{ code: 'KEEP', name: '' }], deactivate_missing: true });
    expect(res.statusCode).toBe(207);
    expect(res.json()).toMatchObject({ deactivated: 1, unchanged: 0 });
    expect((await list()).json().lines.map((l: { code: string }) => l.code)).toEqual(['KEEP']);
  });

  it('accepts JSON, urlencoded (lines[0][code]) and multipart bodies, with deactivate_missing as a form boolean', async () => {
    for (const [i, encoding] of ENCODINGS.entries()) {
      const res = await sync({ lines: [{ code: `ENC${i}`, name: `Encoded ${encoding}` }], deactivate_missing: true }, encoding);
      expect(res.statusCode, `${encoding}: ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({ created: 1, deactivated: i === 0 ? 0 : 1, total: 1 });
    }
    const lines = (await list('?include_inactive=true')).json().lines;
    expect(lines.map((l: { code: string; name: string; active: boolean }) => [l.code, l.name, l.active])).toEqual([
      ['ENC0', 'Encoded json', false],
      ['ENC1', 'Encoded urlencoded', false],
      ['ENC2', 'Encoded multipart', true],
    ]);
  });

  it('rejects a body without lines, a non-boolean deactivate_missing, or more than 1000 lines (400 naming the field)', async () => {
    const none = await sync({});
    expect(none.statusCode).toBe(400);
    expect(envelope(none)).toEqual({ code: 'INVALID_ARGUMENT', message: 'lines: is required' });
    const flag = await sync({ lines: [], deactivate_missing: 'yes' });
    expect(flag.statusCode).toBe(400);
    expect(envelope(flag).message).toMatch(/^deactivate_missing: /);
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ code: `L${i}`, name: `Line ${i}` }));
    expect((await sync({ lines: many(1000) })).json()).toMatchObject({ created: 1000, total: 1000 });
    const over = await sync({ lines: many(1001) });
    expect(over.statusCode).toBe(400);
    expect(envelope(over).message).toBe('lines: must hold at most 1000 lines');
  });

  it('rejects an invalid include_inactive', async () => {
    const res = await list('?include_inactive=maybe');
    expect(res.statusCode).toBe(400);
    expect(envelope(res).message).toMatch(/^include_inactive: /);
  });

  it('ignores unknown fields in lines and never stores them', async () => {
    const marker = 'REV-UNKNOWN-MARKER-91ac';
    const res = await sync({ lines: [{ code: 'U1', name: 'U', colour: marker }], other: marker });
    expect(res.statusCode).toBe(200);
    expect((await list()).body).not.toContain(marker);
    expect(JSON.stringify(await t.database.db.selectFrom('revenue_lines').selectAll().execute())).not.toContain(marker);
  });
});

describe('invoice lines: POST (ingest) and GET (list)', () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    m = await t.merchant();
    const res = await post(t.app, REVENUE, { lines: [{ code: 'WATER', name: 'Water' }, { code: 'POWER', name: 'Electricity' }, { code: 'OLD', name: 'Old' }] }, { key: m.api_key });
    expect(res.statusCode).toBe(200);
    await post(t.app, REVENUE, { lines: [{ code: 'WATER', name: 'Water' }, { code: 'POWER', name: 'Electricity' }], deactivate_missing: true }, { key: m.api_key });
  });
  afterAll(async () => t.close());

  const ingest = (body: unknown, encoding: Encoding = 'json') => post(t.app, INVOICE, body, { key: m.api_key, encoding });
  const lines = (ref: string) => get(t.app, `${INVOICE}?invoice_ref=${encodeURIComponent(ref)}`, m.api_key);

  it('ingests lines (name defaults to the revenue line name) and lists them with the total', async () => {
    const res = await ingest({ invoice_ref: 'INV-100', currency: 'GHS', lines: [{ code: 'WATER', amount_minor: 1500 }, { code: 'POWER', name: 'Power, May', amount_minor: 2500 }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ object: 'invoice.line_items', invoice_ref: 'INV-100', ingested: 2, billed_minor: 4000, errors: [] });
    const listed = await lines('INV-100');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({
      object: 'invoice.line_items',
      invoice_ref: 'INV-100',
      lines: [
        { code: 'POWER', name: 'Power, May', amount_minor: 2500, currency: 'GHS', remitted: false },
        { code: 'WATER', name: 'Water', amount_minor: 1500, currency: 'GHS', remitted: false },
      ],
      total_minor: 4000,
    });
  });

  it('replaces a line that has the same code (re-sending an invoice is safe)', async () => {
    await ingest({ invoice_ref: 'INV-R', lines: [{ code: 'WATER', amount_minor: 1000 }] });
    const again = await ingest({ invoice_ref: 'INV-R', lines: [{ code: 'WATER', amount_minor: 1200 }, { code: 'POWER', amount_minor: 300 }] });
    expect(again.json()).toMatchObject({ ingested: 2, billed_minor: 1500 });
    const listed = (await lines('INV-R')).json();
    expect(listed.lines).toHaveLength(2);
    expect(listed.total_minor).toBe(1500);
  });

  it('a request mixing existing and new lines updates the existing ones in place (same row, first place kept) and adds the new', async () => {
    await ingest({ invoice_ref: 'INV-MIX', lines: [{ code: 'WATER', name: 'Water, May', amount_minor: 1000 }] });
    const [before] = await t.database.db.selectFrom('invoice_lines').select(['id', 'created_at']).where('merchant_id', '=', m.merchant_id).where('invoice_ref', '=', 'INV-MIX').execute();
    t.clock.advance(60_000);
    const res = await ingest({ invoice_ref: 'INV-MIX', lines: [{ code: 'POWER', amount_minor: 300 }, { code: 'WATER', amount_minor: 1200 }, { code: 'WATER', amount_minor: 5 }] });
    expect(res.statusCode).toBe(207);
    expect(res.json()).toMatchObject({ ingested: 2, billed_minor: 1500, errors: [{ index: 2, code: 'DUPLICATE_LINE', field: 'lines[2].code' }] });
    const rows = await t.database.db.selectFrom('invoice_lines').selectAll().where('merchant_id', '=', m.merchant_id).where('invoice_ref', '=', 'INV-MIX').orderBy('code').execute();
    expect(rows.map((r) => [r.code, r.name, r.amount_minor, r.currency, r.mode, r.remitted, r.remitted_at])).toEqual([
      ['POWER', 'Electricity', 300, 'GHS', 'test', 0, null],
      // Re-sent without a name: the catalogue's name, as for a new line.
      ['WATER', 'Water', 1200, 'GHS', 'test', 0, null],
    ]);
    const water = rows[1]!;
    expect([water.id, water.created_at]).toEqual([before!.id, before!.created_at]);
    expect(water.updated_at > water.created_at).toBe(true);
    expect(rows[0]!.created_at).toBe(water.updated_at);
    // The first recorded line stays first.
    expect((await lines('INV-MIX')).json().lines.map((l: { code: string }) => l.code)).toEqual(['WATER', 'POWER']);
  });

  it('takes 1000 lines in one request, each stored once with its own id, and reports the bad ones among them by index', async () => {
    const codes = Array.from({ length: 1000 }, (_, i) => ({ code: `BULK${i}`, name: `Bulk ${i}` }));
    expect((await post(t.app, REVENUE, { lines: codes }, { key: m.api_key })).statusCode).toBe(200);
    const many = codes.map((c, i) => ({ code: c.code, amount_minor: i + 1 }));
    const res = await ingest({ invoice_ref: 'INV-BULK', lines: many });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ object: 'invoice.line_items', invoice_ref: 'INV-BULK', ingested: 1000, billed_minor: 500_500, errors: [] });
    const listed = (await lines('INV-BULK')).json();
    expect(listed.lines).toHaveLength(1000);
    expect(listed.total_minor).toBe(500_500);
    const ids = await t.database.db.selectFrom('invoice_lines').select('id').where('merchant_id', '=', m.merchant_id).where('invoice_ref', '=', 'INV-BULK').execute();
    expect(new Set(ids.map((r) => r.id)).size).toBe(1000);

    // Again, with line 500 repeating line 3's code, line 700 unknown and line 999 a bad amount: the rest replace.
    const again = many.map((l) => ({ ...l, amount_minor: l.amount_minor * 2 }));
    again[500] = { code: 'BULK3', amount_minor: 1 };
    again[700] = { code: 'NOPE', amount_minor: 1 };
    again[999] = { code: 'BULK999', amount_minor: 0 };
    const second = await ingest({ invoice_ref: 'INV-BULK', lines: again });
    expect(second.statusCode).toBe(207);
    const body = second.json();
    expect(body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [500, 'DUPLICATE_LINE'],
      [700, 'REVENUE_LINE_UNKNOWN'],
      [999, 'INVOICE_LINE_AMOUNT_INVALID'],
    ]);
    expect(body.ingested).toBe(997);
    const after = (await lines('INV-BULK')).json();
    expect(after.lines).toHaveLength(1000);
    const amount = (code: string) => after.lines.find((l: { code: string }) => l.code === code).amount_minor;
    expect([amount('BULK3'), amount('BULK500'), amount('BULK700'), amount('BULK999')]).toEqual([8, 501, 701, 1000]);
  });

  it('answers 207 with per-line errors: bad amounts, unknown or inactive codes, duplicates, bad shapes', async () => {
    const res = await ingest({
      invoice_ref: 'INV-207',
      lines: [
        { code: 'WATER', amount_minor: 700 },
        { code: 'WATER', amount_minor: 1 },
        { code: 'POWER', amount_minor: 0 },
        { code: 'POWER', amount_minor: 2.5 },
        { code: 'POWER', amount_minor: '9' },
        { code: 'NOPE', amount_minor: 5 },
        { code: 'OLD', amount_minor: 5 },
        { code: 'POWER' },
        { amount_minor: 5 },
      ],
    });
    expect(res.statusCode).toBe(207);
    const body = res.json();
    expect(body).toMatchObject({ object: 'invoice.line_items', invoice_ref: 'INV-207', ingested: 1, billed_minor: 700 });
    expect(body.errors.map((e: { index: number; code: string; field: string }) => [e.index, e.code, e.field])).toEqual([
      [1, 'DUPLICATE_LINE', 'lines[1].code'],
      [2, 'INVOICE_LINE_AMOUNT_INVALID', 'lines[2].amount_minor'],
      [3, 'INVOICE_LINE_AMOUNT_INVALID', 'lines[3].amount_minor'],
      [4, 'INVOICE_LINE_AMOUNT_INVALID', 'lines[4].amount_minor'],
      [5, 'REVENUE_LINE_UNKNOWN', 'lines[5].code'],
      [6, 'REVENUE_LINE_UNKNOWN', 'lines[6].code'],
      [7, 'INVALID_ARGUMENT', 'lines[7].amount_minor'],
      [8, 'INVALID_ARGUMENT', 'lines[8].code'],
    ]);
    for (const e of body.errors) expect(e.message.startsWith(`${e.field}: `)).toBe(true);
    expect((await lines('INV-207')).json().lines).toEqual([{ code: 'WATER', name: 'Water', amount_minor: 700, currency: 'GHS', remitted: false }]);
  });

  it('accepts JSON, urlencoded (lines[0][code]) and multipart bodies', async () => {
    for (const encoding of ENCODINGS) {
      const ref = `INV-${encoding}`;
      const res = await ingest({ invoice_ref: ref, currency: 'GHS', lines: [{ code: 'WATER', amount_minor: 150 }, { code: 'POWER', name: 'P', amount_minor: 250 }] }, encoding);
      expect(res.statusCode, `${encoding}: ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({ ingested: 2, billed_minor: 400, errors: [] });
      expect((await lines(ref)).json().total_minor).toBe(400);
    }
    const bad = await ingest({ invoice_ref: 'INV-FB', lines: [{ code: 'WATER', amount_minor: '0' }] }, 'urlencoded');
    expect(bad.statusCode).toBe(207);
    expect(bad.json().errors[0]).toMatchObject({ code: 'INVOICE_LINE_AMOUNT_INVALID', field: 'lines[0].amount_minor' });
  });

  it('validates the request: invoice_ref 120/121, currency 3/4, lines required, 1..1000 lines', async () => {
    const line = [{ code: 'WATER', amount_minor: 1 }];
    expect((await ingest({ invoice_ref: 'R'.repeat(120), lines: line })).statusCode).toBe(200);
    const longRef = await ingest({ invoice_ref: 'R'.repeat(121), lines: line });
    expect(longRef.statusCode).toBe(400);
    expect(envelope(longRef)).toEqual({ code: 'INVALID_ARGUMENT', message: 'invoice_ref: must be at most 120 characters' });
    expect((await ingest({ invoice_ref: 'INV-USD', currency: 'USD', lines: line })).statusCode).toBe(200);
    const cur = await ingest({ invoice_ref: 'INV-C', currency: 'CEDI', lines: line });
    expect(cur.statusCode).toBe(400);
    expect(envelope(cur).message).toMatch(/^currency: /);
    const noRef = await ingest({ lines: line });
    expect(envelope(noRef)).toEqual({ code: 'INVALID_ARGUMENT', message: 'invoice_ref: is required' });
    const noLines = await ingest({ invoice_ref: 'INV-N' });
    expect(envelope(noLines)).toEqual({ code: 'INVALID_ARGUMENT', message: 'lines: is required' });
    const empty = await ingest({ invoice_ref: 'INV-N', lines: [] });
    expect(envelope(empty)).toEqual({ code: 'INVALID_ARGUMENT', message: 'lines: must hold at least one line' });
    const many = Array.from({ length: 1001 }, () => ({ code: 'WATER', amount_minor: 1 }));
    const over = await ingest({ invoice_ref: 'INV-N', lines: many });
    expect(envelope(over)).toEqual({ code: 'INVALID_ARGUMENT', message: 'lines: must hold at most 1000 lines' });
  });

  it('refuses lines in a second currency for the same invoice (409 INVOICE_CURRENCY_MISMATCH)', async () => {
    await ingest({ invoice_ref: 'INV-CUR', currency: 'GHS', lines: [{ code: 'WATER', amount_minor: 10 }] });
    const res = await ingest({ invoice_ref: 'INV-CUR', currency: 'USD', lines: [{ code: 'POWER', amount_minor: 10 }] });
    expect(res.statusCode).toBe(409);
    expect(envelope(res).code).toBe('INVOICE_CURRENCY_MISMATCH');
    expect((await lines('INV-CUR')).json().lines).toHaveLength(1);
  });

  it('refuses to change a paid (remitted) invoice (409 INVOICE_ALREADY_PAID)', async () => {
    await ingest({ invoice_ref: 'INV-PAID', lines: [{ code: 'WATER', amount_minor: 10 }] });
    await t.database.db.updateTable('invoice_lines').set({ remitted: 1 }).where('invoice_ref', '=', 'INV-PAID').where('merchant_id', '=', m.merchant_id).execute();
    const res = await ingest({ invoice_ref: 'INV-PAID', lines: [{ code: 'WATER', amount_minor: 99 }] });
    expect(res.statusCode).toBe(409);
    expect(envelope(res).code).toBe('INVOICE_ALREADY_PAID');
    expect((await lines('INV-PAID')).json().lines[0]).toMatchObject({ amount_minor: 10, remitted: true });
  });

  it('GET needs invoice_ref (400) and answers 404 for an invoice with no lines', async () => {
    const missing = await get(t.app, INVOICE, m.api_key);
    expect(missing.statusCode).toBe(400);
    expect(envelope(missing)).toEqual({ code: 'INVALID_ARGUMENT', message: 'invoice_ref: is required' });
    const long = await lines('R'.repeat(121));
    expect(long.statusCode).toBe(400);
    expect(envelope(long).message).toMatch(/^invoice_ref: /);
    const unknown = await lines('INV-NEVER');
    expect(unknown.statusCode).toBe(404);
    expect(envelope(unknown).code).toBe('NOT_FOUND');
  });

  it('ignores unknown fields and never stores them', async () => {
    const marker = 'INV-UNKNOWN-MARKER-3d2e';
    const res = await ingest({ invoice_ref: 'INV-U', note: marker, lines: [{ code: 'WATER', amount_minor: 5, tax_id: marker }] });
    expect(res.statusCode).toBe(200);
    expect((await lines('INV-U')).body).not.toContain(marker);
    expect(JSON.stringify(await t.database.db.selectFrom('invoice_lines').selectAll().execute())).not.toContain(marker);
  });
});
