import net from 'node:net';
import { nearestRank } from './quantile';

/**
 * The PostgreSQL run's load generator: a closed loop of keep-alive HTTP/1.1 connections, each
 * with one request in flight, answered when the response's Content-Length bytes have arrived.
 *
 * Per request here, autocannon (bench/run.ts) spends 25–31 µs of its own CPU (a JavaScript HTTP
 * parser, a timer per request), undici 31–46 µs, this loop 19–27 µs, most of it the kernel's
 * loopback. On a 2-core machine the load generator shares the cores with the servers it loads, and
 * driven by autocannon two instances spent 59–68 µs of server CPU per get against 49–57 with this
 * loop, and answered fewer gets than one. The SQLite run keeps autocannon: there each scenario is
 * read against a ceiling measured by the same client, so its cost is on both sides of the ratio.
 */

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Base URLs (`http://127.0.0.1:PORT`); the connections are split evenly between them. */
  targets: string[];
  /** Connections in all, each with one request in flight. */
  connections: number;
  durationS: number;
  /** The next request for a connection to `target`, called once per request. */
  request: (target: string) => LoadRequest;
  /** Each complete response inside the window, with its body as text. */
  onResponse?: (status: number, body: string) => void;
  /** A request unanswered this long counts as an error and its connection is opened again. */
  timeoutMs?: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Responses other than 2xx, connection errors and timeouts. */
  errors: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;
const CLOSE = /\r\nconnection:\s*close/i;

/** The value at `q` (0–1) of ascending `sorted` latencies in ms (nearest rank), to 0.1 ms. */
const quantile = (sorted: Float64Array, q: number): number => Math.round(nearestRank(sorted, q) * 10) / 10;

export function load(opts: LoadOptions): Promise<LoadResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let latencies = new Float64Array(1 << 16);
  let completed = 0;
  let errors = 0;
  let stopped = false;
  let failure: Error | null = null;
  const sockets = new Set<net.Socket>();
  // Each connection with a request unanswered: when it was sent, and how to give up on it.
  const inFlight = new Map<net.Socket, { since: number; abandon: () => void }>();

  const record = (ms: number) => {
    if (completed === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[completed++] = ms;
  };

  const open = (target: string) => {
    if (stopped) return;
    const { hostname, port } = new URL(target);
    const host = `${hostname}:${port}`;
    const sock = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    sock.setNoDelay(true);
    sockets.add(sock);
    let pending: Buffer | null = null;
    let started = 0;
    // A scenario that returns the same request object each time is serialised once.
    let last: LoadRequest | null = null;
    let lastText = '';
    const send = () => {
      if (stopped) return;
      const r = opts.request(target);
      if (r !== last) {
        let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${host}\r\n`;
        for (const [k, v] of Object.entries(r.headers)) head += `${k}: ${v}\r\n`;
        if (r.body !== undefined) head += `content-length: ${Buffer.byteLength(r.body)}\r\n`;
        last = r;
        lastText = `${head}\r\n${r.body ?? ''}`;
      }
      started = performance.now();
      inFlight.set(sock, { since: started, abandon: fail });
      sock.write(lastText);
    };
    const again = () => {
      sockets.delete(sock);
      inFlight.delete(sock);
      sock.destroy();
      // Opened again on the next turn, not inside the failing socket's own callbacks.
      if (!stopped) setImmediate(() => open(target));
    };
    function fail() {
      if (stopped || !sockets.has(sock)) return;
      errors++;
      again();
    }
    sock.on('connect', send);
    sock.on('error', fail);
    sock.on('end', () => {
      // The server closed the connection: an error only with a request unanswered on it.
      if (inFlight.has(sock)) fail();
      else if (!stopped) again();
    });
    sock.on('data', (chunk: Buffer) => {
      if (stopped) return;
      pending = pending === null ? chunk : Buffer.concat([pending, chunk]);
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = pending.toString('latin1', 0, headEnd);
      const length = CONTENT_LENGTH.exec(head);
      if (!length) {
        // Every answer of the scenarios measured is JSON with a length; anything else would be
        // counted wrongly, so the run stops and says why.
        failure = new Error(`load generator: a response without Content-Length: ${head.split('\r\n')[0]}`);
        finish();
        return;
      }
      const end = headEnd + HEAD_END.length + Number(length[1]);
      if (pending.length < end) return;
      const status = Number(head.slice(9, 12));
      const body = pending.subarray(headEnd + HEAD_END.length, end);
      pending = pending.length > end ? pending.subarray(end) : null;
      inFlight.delete(sock);
      record(performance.now() - started);
      if (status < 200 || status > 299) errors++;
      if (opts.onResponse) opts.onResponse(status, body.toString('utf8'));
      if (CLOSE.test(head)) again();
      else send();
    });
  };

  let resolveRun: (r: LoadResult) => void;
  let rejectRun: (e: Error) => void;
  const done = new Promise<LoadResult>((resolve, reject) => {
    resolveRun = resolve;
    rejectRun = reject;
  });
  const began = performance.now();
  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const { since, abandon } of [...inFlight.values()]) if (now - since >= timeoutMs) abandon();
  }, 1000);
  const timer = setTimeout(() => finish(), opts.durationS * 1000);
  function finish() {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    clearInterval(watchdog);
    const seconds = (performance.now() - began) / 1000;
    for (const s of sockets) s.destroy();
    sockets.clear();
    if (failure) return rejectRun(failure);
    const sorted = latencies.slice(0, completed).sort();
    resolveRun({
      requests: completed,
      rps: completed / seconds,
      p50_ms: quantile(sorted, 0.5),
      p99_ms: quantile(sorted, 0.99),
      errors,
    });
  }

  const per = Math.max(1, Math.round(opts.connections / opts.targets.length));
  for (const target of opts.targets) for (let i = 0; i < per; i++) open(target);
  return done;
}
