import { sql, type Kysely } from 'kysely';

// Frozen. (1) Invoice lines were marked remitted by any successful session, even a
// part-payment; recompute every invoice's flags with the allocation rule of
// domain/invoice-allocation.ts (a line stays remitted, with its old time, only if the collected
// money covers it; a newly covered line gets the time of the last payment). (2) Bank-transfer
// attempts now carry their own window in prompt_expires_at; one still awaiting a transfer gets
// its session's expires_at, the limit it effectively had, and its session stays as it is.
interface LineRow {
  id: string;
  merchant_id: string;
  invoice_ref: string;
  code: string;
  amount_minor: number;
  currency: string;
  remitted: number;
  remitted_at: string | null;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const lines = (
    await sql<LineRow>`
      SELECT id, merchant_id, invoice_ref, code, amount_minor, currency, remitted, remitted_at
      FROM invoice_lines ORDER BY merchant_id, invoice_ref, created_at, code`.execute(db)
  ).rows;
  const byInvoice = new Map<string, LineRow[]>();
  for (const l of lines) {
    const key = `${l.merchant_id}\u0000${l.invoice_ref}`;
    const group = byInvoice.get(key) ?? [];
    group.push(l);
    byInvoice.set(key, group);
  }
  for (const group of byInvoice.values()) {
    const first = group[0]!;
    const paid = (
      await sql<{ n: number | null; last: string | null }>`
        SELECT SUM(amount_minor) AS n, MAX(finalized_at) AS last FROM checkout_sessions
        WHERE merchant_id = ${first.merchant_id} AND invoice_ref = ${first.invoice_ref} AND currency = ${first.currency} AND status = 'success'`.execute(db)
    ).rows[0];
    // The rule as of this migration (a frozen copy of domain/invoice-allocation.ts `allocate`):
    // lines in listing order, each wholly covered before the next.
    let left = Number(paid?.n ?? 0);
    let blocked = false;
    for (const l of group) {
      const covered = !blocked && left >= l.amount_minor;
      if (covered) left -= l.amount_minor;
      else blocked = true;
      if (covered === (l.remitted === 1)) continue;
      const at = covered ? (paid?.last ?? null) : null;
      await sql`UPDATE invoice_lines SET remitted = ${covered ? 1 : 0}, remitted_at = ${at} WHERE id = ${l.id}`.execute(db);
    }
  }
  await sql`
    UPDATE payment_attempts SET prompt_expires_at = (SELECT expires_at FROM checkout_sessions s WHERE s.id = payment_attempts.session_id)
    WHERE rail = 'bank_transfer' AND status = 'pending' AND prompt_expires_at IS NULL`.execute(db);
}
