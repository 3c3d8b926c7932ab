import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../support/cli';

const ROOT = resolve(__dirname, '../..');

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Spawns `server/main.ts` (what `npm run serve` runs) and waits for its `listening on http://` line. */
function serve(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`server did not start within 45 s:\n${out}`));
    }, 45_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        done({ child, url: match[1]!, output: () => out, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}

/** Sends SIGTERM and waits (bounded) for the exit code. */
async function stop(s: Served): Promise<number | null> {
  s.child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((done) => setTimeout(() => done('timeout'), 30_000).unref());
  const code = await Promise.race([s.exited, timeout]);
  if (code === 'timeout') {
    s.child.kill('SIGKILL');
    throw new Error(`server did not exit within 30 s of SIGTERM:\n${s.output()}`);
  }
  return code;
}

const call = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });

describe('serve mode (npm run serve)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let server: Served | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paydesk-serve-'));
    server = await serve(dataDir);
  }, 120_000);
  afterAll(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints "listening on http://127.0.0.1:<port>" and answers GET /healthz with 200', async () => {
    expect(server!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server!.url).not.toMatch(/:0$/);
    const res = await call(`${server!.url}/healthz`);
    expect(res.status).toBe(200);
  });

  it('on an empty database prints a one-time setup link that creates the first administrator', async () => {
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = /first run: no staff account yet\. Create the first administrator at (http:\/\/\S+) \(valid 30 minutes, once\)/.exec(server!.output())?.[1];
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    expect(link, server!.output()).toMatch(new RegExp(`^${server!.url}/backoffice/setup#token=setup_`));
    const token = new URL(link!).hash.replace('#token=', '');
    const page = await call(`${server!.url}/backoffice/setup`);
    expect(page.status).toBe(200);
    const body = { token, username: 'first.admin', full_name: 'Efua Asante', password: 'first admin pass 2026' };
    const made = await call(`${server!.url}/api/backoffice/v1/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(made.status).toBe(201);
    const again = await call(`${server!.url}/api/backoffice/v1/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, username: 'second.admin' }) });
    expect(again.status).toBe(401);
    const login = await call(`${server!.url}/api/backoffice/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'first.admin', password: body.password }) });
    expect(login.status).toBe(200);
  });

  it('sees an integration the CLI creates while it runs, without a restart; checkout_url uses the bound port', async () => {
    const created = await runAdmin(dataDir, ['integration:create', '--merchant', 'Live Shop', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { api_key: key } = JSON.parse(created.stdout) as { api_key: string };
    const res = await call(`${server!.url}/api/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount_minor: 1000, invoice_ref: 'INV-SERVE' }),
    });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { id: string; checkout_url: string };
    expect(session.checkout_url).toBe(`${server!.url}/checkout/${session.id}`);

    // And a key revoked by the CLI stops working at once.
    expect((await runAdmin(dataDir, ['key:revoke', '--key', key, '--json'])).code).toBe(0);
    const after = await call(`${server!.url}/api/v1/revenue-lines`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
  });

  it('exits 0 on SIGTERM and stops listening', async () => {
    const url = server!.url;
    expect(await stop(server!)).toBe(0);
    await expect(call(`${url}/healthz`)).rejects.toThrow();
  });

  it('exits 0 on SIGINT too, and uses PUBLIC_BASE_URL for checkout_url', async () => {
    const other = await serve(dataDir, { PUBLIC_BASE_URL: 'https://pay.example.com/' });
    try {
      const created = JSON.parse((await runAdmin(dataDir, ['integration:create', '--merchant', 'Base Url Shop', '--json'])).stdout) as { api_key: string };
      const res = await call(`${other.url}/api/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount_minor=5&invoice_ref=INV-BASE',
      });
      const s = (await res.json()) as { id: string; checkout_url: string };
      expect(s.checkout_url).toBe(`https://pay.example.com/checkout/${s.id}`);
    } finally {
      other.child.kill('SIGINT');
    }
    expect(await other.exited).toBe(0);
  });

  it('refuses to start on a bad environment variable, naming it', async () => {
    await expect(serve(dataDir, { RATE_LIMIT_PER_MIN: 'lots' })).rejects.toThrow(/RATE_LIMIT_PER_MIN/);
  });
});

describe('two server processes on one DATA_DIR', { timeout: 120_000 }, () => {
  let dataDir: string;
  const servers: Served[] = [];
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'paydesk-serve2-'));
    servers.push(await serve(dataDir)); // the first migrates the fresh DATA_DIR
    servers.push(await serve(dataDir));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The key is reserved in the write's own transaction (docs/merchant-api.md): a request racing
  // the first waits for SQLite's write lock, then replays; no 409 IN_FLIGHT is left to handle.
  it('one Idempotency-Key raced across both processes writes one session; all 30 answer 201 with the identical body, 29 of them replays', async () => {
    const { api_key: key } = JSON.parse((await runAdmin(dataDir, ['integration:create', '--merchant', 'Race Shop', '--json'])).stdout) as { api_key: string };
    const body = JSON.stringify({ amount_minor: 777, invoice_ref: 'INV-XPROC' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(`${servers[i % 2]!.url}/api/v1/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'xproc-1' },
          body,
        }).then(async (r) => ({ status: r.status, text: await r.text(), replayed: r.headers.get('idempotent-replayed') })),
      ),
    );
    for (const r of results) expect(r.status, r.text).toBe(201);
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(results.filter((r) => r.replayed === 'true')).toHaveLength(29);
    for (const s of servers) expect(await stop(s)).toBe(0);
  });
});
