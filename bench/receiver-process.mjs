// The webhook receiver `npm run bench` delivers to, in a process of its own (bench/bench-receiver.ts
// starts it with plain node and talks to it over IPC). A merchant's receiver runs on its own
// machine; here it shares the two cores with the server, so it is kept to what a receiver does:
// node:http, one 200 per POST, the event id from the `webhook-id` header.
//
// It starts gated: each POST to /hooks waits unanswered (the dispatcher's `concurrency` of them at
// a time), so the rest of the backlog stays due in the outbox; `open` answers the waiting ones and
// every later one at once. (A receiver that answered 503 instead sent each delivery into the 1 s
// retry schedule, so at opening most of the backlog was not due yet.) POSTs to any other path are
// answered at once and not counted (`warm` in bench-receiver.ts).
//
// Messages in: {op: 'open' | 'stats' | 'times', id}. Answers: {id, ...}.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

let gated = true;
let attempts = 0;
/** TCP connections accepted (the dispatcher keeps its connections alive: few, not one per delivery). */
let connections = 0;
let lastDropped = null;
let openedAt = 0;
/** Event id → ms after the last `open` when it was first acknowledged. */
const acked = new Map();
const waiting = new Set();

const ack = (res, id) => {
  if (!acked.has(id)) acked.set(id, performance.now() - openedAt);
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
};

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url !== '/hooks') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    attempts++;
    const id = String(req.headers['webhook-id'] ?? '');
    if (!gated) return ack(res, id);
    const w = { res, id };
    waiting.add(w);
    res.on('close', () => {
      if (waiting.delete(w)) lastDropped = performance.now();
    });
  });
});
server.keepAliveTimeout = 30_000;
server.on('connection', () => connections++);

process.on('message', (m) => {
  if (m.op === 'open') {
    gated = false;
    openedAt = performance.now();
    for (const w of waiting) ack(w.res, w.id);
    waiting.clear();
    process.send({ id: m.id });
  } else if (m.op === 'stats') {
    process.send({ id: m.id, attempts, connections, acked: acked.size, droppedAgoMs: lastDropped === null ? null : performance.now() - lastDropped });
  } else if (m.op === 'times') {
    process.send({ id: m.id, times: [...acked.values()] });
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
