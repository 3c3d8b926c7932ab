import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The webhook receiver `npm run bench` delivers to: bench/receiver-process.mjs, run by plain node
 * in a process of its own and driven over IPC. It counts attempts, acknowledges each event id
 * once (the time of its first acknowledgement kept), and starts gated so deliveries pile up
 * (receiver-process.mjs says why).
 *
 * In the bench process (tsx, autocannon, the scenario data on its heap) with its answering path
 * cold it used 145-273 µs of CPU per delivery in the fan-out window, on the two cores the server
 * needs. In a process of its own, still cold: 220-235 µs. Warmed first (`warm`): 70-120 µs. A
 * merchant's receiver runs on another machine and has answered before: the bench should charge the
 * server's window with as little of it as it can (docs/performance.md, "Webhook fan-out").
 */
export interface ReceiverStats {
  /** POSTs to /hooks received (answered or waiting). */
  attempts: number;
  /** TCP connections accepted so far (the warm-up's included). */
  connections: number;
  /** Distinct event ids acknowledged. */
  acked: number;
  /** ms since the dispatcher last dropped a waiting request (its attempt timed out), or null. */
  droppedAgoMs: number | null;
}

export interface Receiver {
  url: string;
  pid: number;
  stats(): Promise<ReceiverStats>;
  /** Answers every waiting request, and every later one, with 200. */
  open(): Promise<void>;
  /** ms from `open` to each event id's first acknowledgement. */
  ackTimes(): Promise<number[]>;
  /**
   * `n` POSTs of a delivery-sized body to a path that is answered at once and not counted,
   * `concurrency` at a time: the receiver's answering path then runs optimised code, as a
   * merchant's long-running receiver does, rather than being compiled inside the measured window.
   */
  warm(n: number, concurrency?: number): Promise<void>;
  close(): void;
}

const SCRIPT = fileURLToPath(new URL('./receiver-process.mjs', import.meta.url));

export async function startReceiver(): Promise<Receiver> {
  // Plain node, not the bench's tsx loader (fork would pass the parent's --import flags on).
  const child: ChildProcess = fork(SCRIPT, [], { execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number }) => (m.port ? resolve(m.port) : reject(new Error('receiver sent no port'))));
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  let next = 0;
  const pending = new Map<number, (m: Record<string, unknown>) => void>();
  child.on('message', (m: { id?: number }) => {
    if (typeof m.id === 'number') {
      pending.get(m.id)?.(m as Record<string, unknown>);
      pending.delete(m.id);
    }
  });
  const ask = <T>(op: string): Promise<T> =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve as (m: Record<string, unknown>) => void);
      child.send({ op, id });
    });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/hooks`,
    pid: child.pid!,
    stats: () => ask<ReceiverStats>('stats'),
    open: async () => void (await ask('open')),
    ackTimes: async () => (await ask<{ times: number[] }>('times')).times,
    async warm(n, concurrency = 32) {
      const body = JSON.stringify({ id: 'evt_warm', type: 'checkout.session.completed', data: { object: { id: 'cs_warm' } } }).padEnd(600, ' ');
      let left = n;
      const worker = async () => {
        while (left-- > 0) {
          const res = await fetch(`${base}/warm`, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': `evt_warm_${left}` }, body });
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    },
    close: () => child.kill(),
  };
}
