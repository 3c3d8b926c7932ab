import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes';
import { SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { dataDir, inspect, request, runAdmin, startReceiver, until, type Receiver, type Reply } from '../support/drills';

/**
 * What an operator checking the durability promise would do: run `npm run serve` (SQLite) under
 * Debian's `strace` and make acknowledged writes one after the other: 100 of each kind a payment
 * rests on — a session created, a Mobile Money authorisation, a cash deposit recorded, a deposit
 * approved. Each answer (the first write of `HTTP/1.1 …` on a socket) must come after an
 * `fsync`/`fdatasync` of the WAL that began after the last write to the WAL before it: the
 * request's commit is on disk before the payer, the teller or the merchant hears of it, so a
 * power cut cannot take back what was answered (docs/operations.md "What survives a crash").
 * Likewise each webhook delivery the server sends (the merchant hears of the 200 payments): it
 * goes out only after a sync of the WAL that began after the commit of every write answered (or
 * being answered) before it, its event's among them. The dispatcher's own bookkeeping (its claims
 * and attempt outcomes, server/db/bookkeeping.ts) may be written to the WAL without a sync, so the
 * last WAL write before a delivery need not be synced: a power cut may take it back, and the
 * delivery is sent again.
 *
 * Skipped, saying why, where strace is missing or may not trace (no ptrace in a container).
 */

const PER_KIND = 100;

function whyNotStrace(): string | null {
  if (process.platform !== 'linux') return 'strace is Linux-only';
  const probe = spawnSync('strace', ['-f', '--seccomp-bpf', '-qq', '-e', 'trace=fdatasync', '-o', '/dev/null', process.execPath, '-e', '0'], { encoding: 'utf8' });
  if (probe.error) return `strace is not installed (${(probe.error as NodeJS.ErrnoException).code}); apt-get install strace`;
  if (probe.status !== 0) return `strace cannot trace here (ptrace not permitted?): ${probe.stderr.trim().split('\n')[0]}`;
  return null;
}

const skip = whyNotStrace();
if (skip) process.stderr.write(`durability-strace.test.ts skipped: ${skip}\n`);

type Kind = 'session_create' | 'momo_authorize' | 'deposit_record' | 'deposit_approve' | 'other';

interface Call {
  /** line index in the trace where the syscall starts and where it returns */
  start: number;
  end: number;
}
interface Trace {
  walWrites: Call[];
  walSyncs: Call[];
  answers: Array<Call & { status: number }>;
  /** Requests the server sent (webhook deliveries). */
  sent: Call[];
}

/**
 * Reads `strace -f -y` output: WAL writes (pwrite64/write/pwritev on `…-wal`), WAL syncs
 * (fsync/fdatasync on `…-wal`) and HTTP answers (write/writev/sendmsg on a socket whose data
 * starts `HTTP/1.1 `), each with the lines where it started and returned. A call interrupted by
 * another thread's shows as `… <unfinished ...>` and later `<... name resumed>` on its thread.
 */
function parseTrace(text: string): Trace {
  const trace: Trace = { walWrites: [], walSyncs: [], answers: [], sent: [] };
  const open = new Map<string, { list: Call[]; call: Call & { status?: number } }>();
  const lines = text.split('\n');
  // A path may hold `->` (`-yy`: TCP:[a:1->b:2]).
  const call = /^(\d+)\s+(?:\S+\s+)?(\w+)\((\d+)<((?:->|[^>])*)>(.*)$/;
  const resumed = /^(\d+)\s+(?:\S+\s+)?<\.\.\. (\w+) resumed>/;
  lines.forEach((line, i) => {
    const r = resumed.exec(line);
    if (r) {
      const pending = open.get(r[1]!);
      if (pending) {
        pending.call.end = i;
        pending.list.push(pending.call);
        open.delete(r[1]!);
      }
      return;
    }
    const m = call.exec(line);
    if (!m) return;
    const [, pid, name, , path, rest] = m as unknown as [string, string, string, string, string, string];
    let list: Call[] | undefined;
    const c: Call & { status?: number } = { start: i, end: i };
    if (path.endsWith('-wal') && /^(pwrite64|pwritev2?|write|writev)$/.test(name)) list = trace.walWrites;
    else if (path.endsWith('-wal') && (name === 'fsync' || name === 'fdatasync')) list = trace.walSyncs;
    else if (/^(socket|TCP|TCPv6):/.test(path) && /^(write|writev|sendmsg|sendto)$/.test(name)) {
      const head = /^, (?:\[\{iov_base=|\{msg_name=NULL, msg_namelen=0, msg_iov=\[\{iov_base=)?"(?:HTTP\/1\.1 (\d{3}) |(POST) )/.exec(rest);
      if (!head) return;
      if (head[2]) {
        list = trace.sent;
      } else {
        c.status = Number(head[1]);
        list = trace.answers;
      }
    }
    if (!list) return;
    if (rest.endsWith('<unfinished ...>')) open.set(pid, { list, call: c });
    else list.push(c);
  });
  for (const l of [trace.walWrites, trace.walSyncs, trace.answers, trace.sent]) l.sort((a, b) => a.start - b.start);
  return trace;
}

describe.skipIf(skip !== null)(skip ? `synced commits under strace (skipped: ${skip})` : 'synced commits under strace: npm run serve on SQLite', () => {
  const data = dataDir('paydesk-strace-');
  const traceFile = join(data.dir, 'serve.strace');
  let tracer: ChildProcess | undefined;
  let serverPid: number | undefined;
  let base = '';
  let exited: Promise<void> = Promise.resolve();
  let receiver: Receiver | undefined;
  /** Every request made to the server since it started, in order, with what it was. */
  const made: Array<{ kind: Kind; what: string; status: number }> = [];

  async function send(kind: Kind, method: string, path: string, opts: Parameters<typeof request>[3] = {}, expected?: number): Promise<Reply> {
    const res = await request(base, method, path, opts);
    made.push({ kind, what: `${method} ${path}`, status: res.status });
    if (expected !== undefined && res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  }

  async function stopServer(): Promise<void> {
    if (serverPid !== undefined) {
      try {
        process.kill(serverPid, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
    const timer = setTimeout(() => {
      if (serverPid !== undefined) spawnSync('kill', ['-9', String(serverPid)]);
      tracer?.kill('SIGKILL');
    }, 15_000);
    await exited;
    clearTimeout(timer);
  }

  beforeAll(async () => {
    // What `npm run serve` runs (package.json): node with the server flags on scripts/serve.mjs.
    tracer = spawn(
      'strace',
      ['-f', '--seccomp-bpf', '-qq', '-y', '-s', '24', '-e', 'trace=pwrite64,pwritev,pwritev2,write,writev,sendmsg,sendto,fsync,fdatasync', '-e', 'signal=none', '-o', traceFile, process.execPath, ...SERVER_NODE_FLAGS, 'scripts/serve.mjs', 'serve'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: data.dir, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MIN: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    exited = new Promise((done) => tracer!.once('exit', () => done()));
    let err = '';
    tracer.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the traced server did not listen within 60 s: ${err}`)), 60_000);
      tracer!.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      tracer!.once('exit', (code) => reject(new Error(`strace exited ${code} before the server listened: ${err}`)));
    });
    // strace blocks fatal signals while it runs a command (-o FILE): the server is stopped directly.
    serverPid = Number(readFileSync(`/proc/${tracer.pid}/task/${tracer.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
  }, 90_000);

  afterAll(async () => {
    await stopServer();
    await receiver?.close();
    data.rm();
  });

  it(`answers ${PER_KIND} of each write only after a sync of the WAL holding its commit`, { timeout: 240_000 }, async () => {
    const branchId = inspect(data.file, (db) => (db.prepare('SELECT id FROM branches ORDER BY id LIMIT 1').get() as { id: string }).id);
    receiver = await startReceiver();
    receiver.gated = false;
    const { api_key } = await runAdmin<{ api_key: string }>(data.dir, ['integration:create', '--merchant', 'Strace Durability', '--webhook-url', receiver.url]);
    const password = 'correct horse battery';
    await runAdmin(data.dir, ['staff:create', '--username', 'teller_strace', '--password', password, '--role', 'teller', '--branch', branchId]);
    await runAdmin(data.dir, ['staff:create', '--username', 'super_strace', '--password', password, '--role', 'supervisor']);
    const signIn = async (username: string) =>
      ((await send('other', 'POST', '/api/backoffice/v1/auth/login', { body: { username, password } }, 200)).body as { token: string }).token;
    const teller = await signIn('teller_strace');
    const supervisor = await signIn('super_strace');
    const bo = (token: string) => ({ authorization: `Bearer ${token}` });

    const create = async (n: number) =>
      ((await send('session_create', 'POST', '/api/v1/sessions', { key: api_key, headers: { 'idempotency-key': `strace-${n}` }, body: { amount_minor: 10_000, invoice_ref: `INV-STRACE-${n}` } }, 201)).body as { id: string }).id;
    const momoSessions: string[] = [];
    const cashSessions: string[] = [];
    for (let n = 0; n < PER_KIND; n++) momoSessions.push(await create(n));
    for (let n = PER_KIND; n < 2 * PER_KIND; n++) cashSessions.push(await create(n));

    // Every session is for the same amount: one quote gives each rail's total.
    const quote = (await send('other', 'GET', `/api/v1/checkout/sessions/${momoSessions[0]}/quote`, {}, 200)).body as { surcharges: { momo: { total_minor: number }; cash: { total_minor: number } } };
    for (const id of momoSessions) {
      const started = await send('other', 'POST', `/api/v1/checkout/sessions/${id}/provider-attempts`, { body: { rail: 'momo', amount_minor: quote.surcharges.momo.total_minor, operator: 'mtn', phone: '0241234567' } }, 201);
      const attempt = (started.body as { attempt_reference: string }).attempt_reference;
      await send('momo_authorize', 'POST', `/api/v1/checkout/sessions/${id}/provider-attempts/${attempt}/authorize`, { body: { code: '123456' } }, 200);
    }
    const deposits: string[] = [];
    for (const id of cashSessions) {
      const slip = (await send('other', 'POST', '/api/v1/checkout/cash-slips', { body: { session_id: id, amount_minor: quote.surcharges.cash.total_minor } }, 201)).body as { slip_token: string };
      const recorded = await send('deposit_record', 'POST', `/api/backoffice/v1/cash-slips/${slip.slip_token}/deposits`, { headers: bo(teller), body: { amount_minor: quote.surcharges.cash.total_minor } }, 201);
      deposits.push((recorded.body as { deposit: { id: string } }).deposit.id);
    }
    for (const id of deposits) await send('deposit_approve', 'POST', `/api/backoffice/v1/deposits/${id}/approve`, { headers: bo(supervisor) }, 200);

    // Every payment (a Mobile Money success, an approved deposit) is an event delivered to the merchant.
    await until('every payment delivered to the merchant', () => receiver!.delivered.size >= 2 * PER_KIND, 60_000);
    await stopServer();
    const trace = parseTrace(readFileSync(traceFile, 'utf8'));
    // One answer in the trace per request, in the order they were made (one at a time).
    expect(trace.answers.map((a) => a.status)).toEqual(made.map((m) => m.status));

    const checked: Record<string, number> = {};
    const unsynced: string[] = [];
    /** The commits of the checked writes (events among them), in trace order. */
    const commits: Call[] = [];
    trace.answers.forEach((answer, i) => {
      const { kind, what } = made[i]!;
      if (kind === 'other') return;
      checked[kind] = (checked[kind] ?? 0) + 1;
      const since = i === 0 ? -1 : trace.answers[i - 1]!.start;
      // Its commit: the last WAL write between the previous answer and this one.
      const commit = trace.walWrites.filter((w) => w.end > since && w.end < answer.start).at(-1);
      if (!commit) {
        unsynced.push(`${kind} ${what}: no WAL write before its answer (trace line ${answer.start + 1})`);
        return;
      }
      commits.push(commit);
      const synced = trace.walSyncs.some((s) => s.start > commit.end && s.end < answer.start);
      if (!synced) unsynced.push(`${kind} ${what}: answered at trace line ${answer.start + 1}, its WAL write (line ${commit.end + 1}) not synced before`);
    });
    expect(checked).toEqual({ session_create: 2 * PER_KIND, momo_authorize: PER_KIND, deposit_record: PER_KIND, deposit_approve: PER_KIND });
    // Soft: the deliveries are checked too when answers fail.
    expect.soft(unsynced.slice(0, 5), `${unsynced.length} answers before their commit was synced`).toEqual([]);

    // No delivery is sent before the commit of every acknowledged write before it (its event's
    // among them: a delivery is claimed only after its event committed) is synced.
    expect(trace.sent.length).toBeGreaterThanOrEqual(2 * PER_KIND);
    const early = trace.sent.filter((d) => {
      const last = commits.filter((c) => c.end < d.start).at(-1);
      return last !== undefined && !trace.walSyncs.some((s) => s.start > last.end && s.end < d.start);
    });
    expect(early.map((d) => `delivery sent at trace line ${d.start + 1}`).slice(0, 5), `${early.length} deliveries sent before the WAL was synced`).toEqual([]);
  });
});

describe('reading the strace log', () => {
  it('finds WAL writes, WAL syncs resumed after another thread’s call, answers and sent requests', () => {
    const log = [
      '100 pwrite64(19</d/paydesk.sqlite-wal>, "\\0\\0"..., 4096, 0) = 4096',
      '100 fdatasync(19</d/paydesk.sqlite-wal> <unfinished ...>',
      '101 write(1<pipe:[5]>, "listening"..., 9) = 9',
      '100 <... fdatasync resumed>) = 0',
      '100 pwrite64(18</d/paydesk.sqlite>, "\\0"..., 4096, 0) = 4096',
      '100 writev(29<socket:[77]>, [{iov_base="HTTP/1.1 201 Created\\r\\nconten"..., iov_len=200}, {iov_base="{}", iov_len=2}], 2) = 202',
      '100 write(31<TCP:[127.0.0.1:5->127.0.0.1:9]>, "POST /hooks HTTP/1.1\\r\\nhost"..., 300) = 300',
      '102 fsync(40</d/paydesk.sqlite-wal>) = 0',
    ].join('\n');
    expect(parseTrace(log)).toEqual({
      walWrites: [{ start: 0, end: 0 }],
      walSyncs: [
        { start: 1, end: 3 },
        { start: 7, end: 7 },
      ],
      answers: [{ start: 5, end: 5, status: 201 }],
      sent: [{ start: 6, end: 6 }],
    });
  });
});
