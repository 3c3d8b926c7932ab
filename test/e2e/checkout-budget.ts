/**
 * The payer page's budget on a phone on 3G: every number `checkout-budget.spec.ts` checks, in
 * one place (docs/checkout.md, "Page weight", states the measured figures).
 *
 * The networks are Chromium's own emulation (DevTools protocol `Network.emulateNetworkConditions`)
 * with these figures taken literally: `latency` is the round trip added before each response's
 * headers, the throughputs are shared by all of a page's requests.
 */
export interface NetworkProfile {
  name: string;
  /** Download, kilobits per second (1 kbit = 1,000 bits). */
  downloadKbps: number;
  uploadKbps: number;
  /** Added to every request before its response starts, milliseconds. */
  rttMs: number;
}

const FAST_3G: NetworkProfile = { name: 'Fast 3G', downloadKbps: 1_600, uploadKbps: 750, rttMs: 150 };
const SLOW_3G: NetworkProfile = { name: 'Slow 3G', downloadKbps: 400, uploadKbps: 400, rttMs: 400 };

export const CHECKOUT_BUDGET = {
  /** The phone's viewport width, CSS pixels. */
  viewportWidth: 390,
  /** From navigation start to the payment methods on screen, with their totals. */
  methodsVisibleMs: [
    { profile: FAST_3G, maxMs: 1_500 },
    { profile: SLOW_3G, maxMs: 4_000 },
  ],
  /**
   * Bytes on the wire (headers and compressed bodies, as DevTools counts "transferred") of every
   * request the page started before its payment methods showed. 1 kB = 1,000 bytes.
   */
  firstViewMaxBytes: 120_000,
  /**
   * The machine the time budgets are set for, by a benchmark the spec runs in a fresh page before
   * and after each run (the median of seven timings of a fixed piece of JavaScript). On a slower
   * machine the stretches of a run with no request in flight count at this machine's speed; on a
   * faster one, as measured.
   * Measured on the project's build machine (2 cores, AMD EPYC, quiet): medians 25–32 ms.
   */
  referenceMachine: { benchmarkMs: 30 },
  /** From navigation start, choosing Cash and creating the slip at once, to the slip with both codes drawn. */
  cashSlip: { profile: SLOW_3G, maxMs: 6_000 },
};
