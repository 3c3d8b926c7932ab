// Node flags the headless server runs with: `npm run serve` (package.json repeats them, checked
// by test/tooling/server-node-flags.test.ts), headless `npm start` and `npm run bench`.
//
// --max-semi-space-size=8: V8's young generation grows to 2 × 16 MB under load by default and
// stays there; 2 × 8 MB keeps RSS after the whole bench ~16–30 MB lower for no measurable CPU
// per request (docs/operations.md "Memory").
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8'];
