// Node flags the headless server runs with: `npm run serve`, headless `npm start` and `npm run
// bench`. package.json, the Containerfile and the systemd unit repeat them, checked by
// test/tooling/server-node-flags.test.ts. Node refuses the last two in NODE_OPTIONS: pass them to node.
//
// --max-semi-space-size=8: V8's young generation grows to 2 × 16 MB under load by default and
// stays there; 2 × 8 MB keeps RSS after the whole bench ~16–30 MB lower for no measurable CPU
// per request (docs/operations.md "Memory").
// --no-memory-reducer: when the main thread goes quiet after a burst (a long export runs in the
// report worker and the loop only writes its chunks), V8's memory reducer runs one to three full
// compacting mark-compacts of the main heap, driven from idle-loop tasks: inside export windows
// they held the loop with single marking steps of 16-85 ms and final pauses of 22-226 ms on a
// loaded machine, the likeliest source of the one 35-39 ms stall per export at a million
// sessions (bench:volume). The heap is still collected by the ordinary allocation-driven GCs; an
// idle server's RSS after a burst came down as far without it (docs/operations.md "Memory").
// --heap-growing-percent=50: after each major GC V8 lets the old generation grow to 1.5× the live
// heap before the next, instead of its dynamic factor (about 2× here on Node 22, where RSS after
// the whole bench read 219-225 MB against a target of 200); with it 191-199 MB, the old space
// 43 MB committed for 33 live instead of 60 for 28, at ~15 % more CPU per session read (11 %
// fewer reads a second at full load) and the same per create (docs/operations.md "Memory").
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--no-memory-reducer', '--heap-growing-percent=50'];
