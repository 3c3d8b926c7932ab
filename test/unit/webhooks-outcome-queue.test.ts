import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOutcomeQueue, FLUSH_WAIT_MS, type OutcomeQueueOptions } from '../../server/modules/webhooks/outcome-queue';
import type { Job, Outcome } from '../../server/modules/webhooks/outcomes';

// The queue between the dispatcher's attempts and their writes: when a batch is
// written, what goes in it, and what a failed write leaves. The dispatcher's own behaviour over a
// real database is in test/integration/webhooks-delivery.test.ts.

const hold = (id: string): Outcome => ({ type: 'hold', job: { id } as Job });
const ids = (batch: Outcome[]) => batch.map((o) => (o.type === 'hold' ? o.job.id : o.result.job.id));
const turn = () => new Promise<void>((r) => setImmediate(r));

function queue(over: Partial<Omit<OutcomeQueueOptions, 'sending'>> & { sending?: number } = {}) {
  const batches: string[][] = [];
  const claimed: Job[][] = [];
  const errors: object[] = [];
  let sending = over.sending ?? 0;
  const q = createOutcomeQueue({
    concurrency: 8,
    stopping: () => false,
    write: async (batch) => {
      batches.push(ids(batch));
      return [];
    },
    claimed: (jobs) => claimed.push(jobs),
    log: { error: (obj) => errors.push(obj) },
    ...over,
    sending: () => sending,
  });
  return { q, batches, claimed, errors, setSending: (n: number) => (sending = n) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('webhook outcome queue', () => {
  it('writes a lone outcome at the next turn when no attempt is being made', async () => {
    const { q, batches } = queue({ sending: 0 });
    let written = false;
    const p = q.record(hold('a')).then(() => (written = true));
    expect(batches).toEqual([]);
    await turn();
    await p;
    expect(written).toBe(true);
    expect(batches).toEqual([['a']]);
  });

  it('while attempts are being made, waits up to FLUSH_WAIT_MS and writes what ended meanwhile together', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { q, batches } = queue({ sending: 3 });
    const done = [q.record(hold('a')), q.record(hold('b'))];
    await turn();
    expect(batches).toEqual([]);
    q.record(hold('c'));
    vi.advanceTimersByTime(FLUSH_WAIT_MS);
    await Promise.all(done);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('writes at once when half of concurrency is waiting, without waiting for the timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { q, batches } = queue({ concurrency: 4, sending: 4 });
    const first = q.record(hold('a'));
    await turn();
    expect(batches).toEqual([]);
    const second = q.record(hold('b'));
    await Promise.all([first, second]);
    expect(batches).toEqual([['a', 'b']]);
  });

  it('writes at once when the last attempt has ended or the dispatcher is stopping', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const t = queue({ sending: 2 });
    const a = t.q.record(hold('a'));
    await turn();
    expect(t.batches).toEqual([]);
    t.setSending(0);
    await Promise.all([a, t.q.record(hold('b'))]);
    expect(t.batches).toEqual([['a', 'b']]);

    let stopping = false;
    const s = queue({ sending: 2, stopping: () => stopping });
    const c = s.q.record(hold('c'));
    await turn();
    expect(s.batches).toEqual([]);
    stopping = true;
    await Promise.all([c, s.q.record(hold('d'))]);
    expect(s.batches).toEqual([['c', 'd']]);
  });

  it('outcomes recorded during a write form the next batch; flushed() waits for both', async () => {
    let release!: () => void;
    const batches: string[][] = [];
    const { q } = queue({
      write: async (batch) => {
        batches.push(ids(batch));
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return [];
      },
    });
    const first = q.record(hold('a'));
    await turn();
    expect(batches).toEqual([['a']]);
    const later = [q.record(hold('b')), q.record(hold('c'))];
    let flushed = false;
    const all = q.flushed().then(() => (flushed = true));
    await turn();
    expect(batches).toEqual([['a']]);
    expect(flushed).toBe(false);
    release();
    await Promise.all([first, ...later, all]);
    expect(batches).toEqual([['a'], ['b', 'c']]);
    expect(flushed).toBe(true);
  });

  it('hands the deliveries claimed with a write to `claimed`, after the write', async () => {
    const job = { id: 'next' } as Job;
    const { q, claimed } = queue({ write: async () => [job] });
    await q.record(hold('a'));
    expect(claimed).toEqual([[job]]);
  });

  it('a failed write is logged with its size; its outcomes resolve and the queue goes on', async () => {
    let fail = true;
    const batches: string[][] = [];
    const { q, errors, claimed } = queue({
      write: async (batch) => {
        batches.push(ids(batch));
        if (fail) throw new Error('disk I/O error');
        return [];
      },
    });
    await q.record(hold('a'));
    expect(errors).toEqual([expect.objectContaining({ count: 1, err: expect.objectContaining({ message: 'disk I/O error' }) })]);
    expect(claimed).toEqual([[]]);
    fail = false;
    await q.record(hold('b'));
    expect(batches).toEqual([['a'], ['b']]);
    expect(errors).toHaveLength(1);
  });
});
