import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openDatabase, type OpenedDatabase } from '../../server/db/database';
import { systemClock } from '../../server/lib/clock';
import { randomIds } from '../../server/lib/ids';
import { runAdmin, type CliResult } from '../support/cli';

/** The single JSON object a `--json` command prints. */
function json(r: CliResult): Record<string, unknown> {
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function expectBadInput(r: CliResult, pattern: RegExp) {
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('operator CLI (npm run admin)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let database: OpenedDatabase | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'paydesk-cli-'));
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('integration:create --json on an empty DATA_DIR prints merchant, integration, an ak_test_ key and a null webhook_secret', async () => {
    const out = json(await runAdmin(dataDir, ['integration:create', '--merchant', 'Accra Water', '--json']));
    expect(Object.keys(out).sort()).toEqual(['api_key', 'integration_id', 'merchant_id', 'webhook_secret']);
    expect(out.api_key).toMatch(/^ak_test_[A-Za-z0-9]{32}$/);
    expect(out.webhook_secret).toBeNull();
    expect(out.merchant_id).toMatch(/^[0-9a-f-]{36}$/);

    // The key works against the API built on the same DATA_DIR, and sees the merchant by name.
    const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '0', PUBLIC_BASE_URL: 'http://cli.test' });
    database = openDatabase(config.databaseFile);
    const app = await build({ db: database.db, clock: systemClock, ids: randomIds, config, logger: false });
    try {
      const res = await app.inject({ method: 'POST', url: '/api/v1/sessions', headers: { authorization: `Bearer ${String(out.api_key)}` }, payload: { amount_minor: 100, invoice_ref: 'INV-CLI' } });
      expect(res.statusCode).toBe(201);
      const row = database.sqlite.prepare('SELECT merchant_id FROM checkout_sessions WHERE id = ?').get(res.json().id) as { merchant_id: string };
      expect(row.merchant_id).toBe(out.merchant_id);
    } finally {
      await app.close();
    }
  });

  it('reuses the merchant by name, prints a webhook secret with --webhook-url, and enables all four rails', async () => {
    const first = json(await runAdmin(dataDir, ['integration:create', '--merchant', 'Kumasi Power', '--json']));
    const second = json(await runAdmin(dataDir, ['integration:create', '--merchant', 'Kumasi Power', '--webhook-url', 'http://127.0.0.1:9999/hooks', '--json']));
    expect(second.merchant_id).toBe(first.merchant_id);
    expect(second.integration_id).not.toBe(first.integration_id);
    expect(second.api_key).not.toBe(first.api_key);
    expect(second.webhook_secret).toMatch(/^whsec_/);

    const list = json(await runAdmin(dataDir, ['integration:list', '--json'])) as { integrations: Array<Record<string, unknown>> };
    const mine = list.integrations.find((i) => i.integration_id === second.integration_id);
    expect(mine).toMatchObject({ merchant_id: first.merchant_id, merchant_name: 'Kumasi Power', mode: 'test', allowed_rails: ['momo', 'card', 'bank_transfer', 'cash'] });
    expect(mine?.webhook_endpoints).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:9999/hooks', status: 'active' })]);
    // The list shows key prefixes, never a key or a secret.
    expect(JSON.stringify(list)).not.toContain(String(second.api_key));
    expect(JSON.stringify(list)).not.toContain(String(second.webhook_secret));
    expect((mine?.api_keys as Array<{ prefix: string }>)[0]!.prefix).toBe(String(second.api_key).slice(0, 12));
  });

  it('refuses --live with a non-zero exit and one line on stderr, creating nothing', async () => {
    const before = json(await runAdmin(dataDir, ['integration:list', '--json'])) as { integrations: unknown[] };
    expectBadInput(await runAdmin(dataDir, ['integration:create', '--merchant', 'Live Co', '--live', '--json']), /live key creation is not enabled/);
    const after = json(await runAdmin(dataDir, ['integration:list', '--json'])) as { integrations: unknown[] };
    expect(after.integrations).toHaveLength(before.integrations.length);
  });

  it('exits non-zero with one line on stderr on bad input', { timeout: 240_000 }, async () => {
    const cases: Array<[string[], RegExp]> = [
      [['integration:create', '--json'], /--merchant is required/],
      [['integration:create', '--merchant', '   ', '--json'], /--merchant is required/],
      [['integration:create', '--merchant', 'X', '--webhook-url', 'not a url', '--json'], /webhook_url/],
      [['integration:create', '--merchant', 'X', '--frobnicate', '--json'], /frobnicate/],
      [['staff:create', '--username', 'someone', '--password', 'longenough', '--role', 'cashier', '--json'], /role/],
      [['staff:create', '--username', 'someone', '--password', 'short', '--role', 'teller', '--json'], /password/],
      [['staff:create', '--username', 'someone', '--role', 'teller', '--json'], /--password is required/],
      // A common password is refused, however long.
      [['staff:create', '--username', 'someone', '--password', '123456789012', '--role', 'teller', '--json'], /password: is a commonly used password/],
      [['staff:create', '--username', 'someone', '--password', 'x', '--password-stdin', '--role', 'teller', '--json'], /not both/],
      [['key:revoke', '--key', 'ak_test_nothing', '--json'], /not found/],
      [['no:such-command'], /unknown command/],
      [[], /command is required/],
    ];
    // Three at a time: quicker than one by one, without starving a loaded 2-core machine.
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const results = await Promise.all(batch.map(([args]) => runAdmin(dataDir, args)));
      results.forEach((r, j) => expectBadInput(r, batch[j]![1]));
    }
  });

  it('staff:create --json prints id, username and role; a taken username is refused', async () => {
    const out = json(await runAdmin(dataDir, ['staff:create', '--username', 'ama.teller', '--password', 'correct horse', '--role', 'teller', '--json']));
    expect(Object.keys(out).sort()).toEqual(['id', 'role', 'username']);
    expect(out).toMatchObject({ username: 'ama.teller', role: 'teller' });
    const sup = json(await runAdmin(dataDir, ['staff:create', '--username', 'kofi.sup', '--password', 'correct horse', '--role', 'supervisor', '--json']));
    expect(sup.role).toBe('supervisor');
    expectBadInput(await runAdmin(dataDir, ['staff:create', '--username', 'ama.teller', '--password', 'another one', '--role', 'admin', '--json']), /already taken/);
  });

  it('staff:create --password-stdin reads the password from a pipe, so it stays out of shell history', async () => {
    const out = json(await runAdmin(dataDir, ['staff:create', '--username', 'stdin.teller', '--password-stdin', '--role', 'teller', '--json'], 'piped secret phrase\n'));
    const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '0' });
    const db = openDatabase(config.databaseFile);
    const app = await build({ db: db.db, clock: systemClock, ids: randomIds, config, logger: false });
    try {
      const login = (password: string) => app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: 'stdin.teller', password } });
      // The trailing newline echo adds is not part of the password.
      const ok = await login('piped secret phrase');
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json()).toMatchObject({ user: { id: out.id }, must_change_password: false });
    } finally {
      await app.close();
      await db.close();
    }
    expectBadInput(await runAdmin(dataDir, ['staff:create', '--username', 'empty.teller', '--password-stdin', '--role', 'teller', '--json'], ''), /empty/);
  });

  it('key:revoke by prefix revokes the key: it then answers 401', async () => {
    const created = json(await runAdmin(dataDir, ['integration:create', '--merchant', 'Revocable', '--json']));
    const key = String(created.api_key);
    const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '0' });
    const db = openDatabase(config.databaseFile);
    const app = await build({ db: db.db, clock: systemClock, ids: randomIds, config, logger: false });
    try {
      const call = () => app.inject({ method: 'GET', url: '/api/v1/revenue-lines', headers: { authorization: `Bearer ${key}` } });
      expect((await call()).statusCode).toBe(200);
      const revoked = json(await runAdmin(dataDir, ['key:revoke', '--key', key.slice(0, 12), '--json']));
      expect(revoked).toMatchObject({ prefix: key.slice(0, 12) });
      expect(Number.isNaN(Date.parse(String(revoked.revoked_at)))).toBe(false);
      const res = await call();
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('UNAUTHORIZED');
      // Revoking again is harmless and reports the original time.
      expect(json(await runAdmin(dataDir, ['key:revoke', '--key', key, '--json'])).revoked_at).toBe(revoked.revoked_at);
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('prints text (not JSON) without --json', async () => {
    const r = await runAdmin(dataDir, ['integration:create', '--merchant', 'Texty']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^api_key\s+ak_test_/m);
    expect(() => JSON.parse(r.stdout)).toThrow();
  });
});
