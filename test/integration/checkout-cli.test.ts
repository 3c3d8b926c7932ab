import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { runAdmin, type CliResult } from '../support/cli';
import { events, openSession, publicSession, quoteTotal, startAttempt, status } from '../support/checkout';
import type { CreatedIntegration } from '../../server/modules/integrations/integrations.service';

function oneLineError(r: CliResult, code: number, pattern: RegExp) {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

// Each runAdmin starts a CLI process through tsx (bounded at 60 s itself); the limits are the other
// CLI files' (test/integration/cli.test.ts), sized for a machine shared with other suites.
describe('operator CLI: sandbox:bank-transfer (the sandbox bank confirms a transfer)', { timeout: 120_000 }, () => {
  let t: TestContext;
  let m: CreatedIntegration;
  beforeAll(async () => {
    t = await createTestApp();
    m = await t.merchant('CLI Transfer Merchant', 'http://127.0.0.1:9/hooks');
  });
  afterAll(async () => t.close());

  async function transfer() {
    const s = await openSession(t, m, { amount_minor: 40_000 });
    const res = await startAttempt(t, s.id, { rail: 'bank_transfer', amount_minor: await quoteTotal(t, s.id, 'bank_transfer') });
    expect(res.statusCode, res.body).toBe(201);
    return { session: s, attempt: res.json() as { attempt_reference: string; amount_charged_minor: number; instructions: { payment_reference: string } } };
  }

  it('a wrong amount is refused on one stderr line (exit 1) and the session keeps waiting for the transfer; the right amount pays it, seen by the running server', async () => {
    const { session, attempt } = await transfer();
    const ref = attempt.instructions.payment_reference;
    const wrong = await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', ref, '--amount', String(attempt.amount_charged_minor - 1), '--json']);
    oneLineError(wrong, 1, /^paydesk admin sandbox:bank-transfer: amount_minor: transfer of 40099 does not match the expected 40100/);
    expect((await publicSession(t, session.id)).status).toBe('pending'); // the transfer window is still open
    expect((await status(t, session.id, attempt.attempt_reference)).json()).toMatchObject({ status: 'pending' });

    const ok = await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', ref, '--amount', String(attempt.amount_charged_minor), '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const lines = ok.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      attempt_reference: attempt.attempt_reference,
      rail: 'bank_transfer',
      status: 'succeeded',
      raw_status: 'TRANSFER_RECEIVED',
      session_id: session.id,
      session_status: 'success',
      finalized: true,
    });
    // The server, running on the same DATA_DIR, sees it without a restart.
    expect(await publicSession(t, session.id)).toMatchObject({ status: 'success', paid_rail: 'bank_transfer' });
    const evs = await events(t, session.id);
    expect(evs.map((e) => e.type)).toEqual(['checkout.session.completed']);
    // The CLI process wrote the event's webhook delivery too (the durable outbox).
    const deliveries = await t.database.db.selectFrom('webhook_deliveries').select(['event_id', 'status']).where('event_id', '=', evs[0]!.id).execute();
    expect(deliveries).toHaveLength(1);

    // The bank's notification repeated: nothing is awaited any more.
    oneLineError(await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', ref, '--amount', String(attempt.amount_charged_minor)]), 1, /is succeeded, not awaiting a transfer/);
    expect(await events(t, session.id)).toHaveLength(1);
  });

  it('prints a readable line without --json', async () => {
    const { session, attempt } = await transfer();
    const r = await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', attempt.instructions.payment_reference, '--amount', String(attempt.amount_charged_minor)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`transfer ${attempt.instructions.payment_reference} of ${attempt.amount_charged_minor} received: attempt ${attempt.attempt_reference} succeeded; session ${session.id} success`);
  });

  it('bad input: missing or malformed flags exit 2, an unknown reference exits 1, each on one stderr line', { timeout: 240_000 }, async () => {
    oneLineError(await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--amount', '100']), 2, /--reference is required/);
    oneLineError(await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', 'PDTX']), 2, /--amount is required/);
    for (const amount of ['12.5', '0']) {
      oneLineError(await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', 'PDTX', `--amount=${amount}`]), 2, /--amount must be a whole number of minor units/);
    }
    oneLineError(await runAdmin(t.dataDir, ['sandbox:bank-transfer', '--reference', 'PDTNOSUCHREF', '--amount', '100', '--json']), 1, /bank transfer with payment reference PDTNOSUCHREF not found/);
  });
});
