/**
 * What `npm run bench` prints after its scenarios (bench/run.ts): each scenario's ratio to its
 * ceiling, and the targets' `{ target, threshold, value, holds }` lines (docs/performance.md).
 */

export interface ScenarioResult {
  scenario: string;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** Server CPU (user + system) per request in µs: steadier than rps when other work shares the cores. */
  server_cpu_us_per_req?: number;
  /** webhook_fanout: the receiver's CPU per delivery (its own process, on the same cores as the server). */
  receiver_cpu_us_per_req?: number;
}

type Results = ReadonlyMap<string, ScenarioResult>;
type Line = (obj: object) => void;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The ceiling each Paydesk scenario's ratio is taken against. */
export const CEILING_OF: Record<string, string> = {
  session_create: 'ceiling_sqlite_insert',
  invoice_lines_ingest: 'ceiling_sqlite_insert',
  momo_attempt_create: 'ceiling_sqlite_insert',
  momo_authorize: 'ceiling_sqlite_insert',
  session_get: 'ceiling_fastify_json',
  public_quote: 'ceiling_fastify_json',
};

export function ratios(results: Results, line: Line): void {
  const pairs: Array<[string, string]> = [
    ['session_create', 'ceiling_sqlite_insert'],
    ['invoice_lines_ingest', 'ceiling_sqlite_insert'],
    ['momo_attempt_create', 'ceiling_sqlite_insert'],
    ['momo_authorize', 'ceiling_sqlite_insert'],
    ['session_get', 'ceiling_fastify_json'],
    ['public_quote', 'ceiling_fastify_json'],
  ];
  for (const [scenario, ceiling] of pairs) {
    const s = results.get(scenario);
    const c = results.get(ceiling);
    if (s && c && c.rps > 0) line({ scenario, ceiling, ratio: round(s.rps / c.rps, 3) });
  }
}

/** `partial` (an `--only` run): a target whose scenario did not run is left out instead of printed as not holding. */
export function targets(results: Results, line: Line, partial = false): void {
  const r = (name: string) => results.get(name);
  const ratio = (a: string, b: string) => {
    const x = r(a);
    const y = r(b);
    return x && y && y.rps > 0 ? round(x.rps / y.rps, 3) : null;
  };
  const check = (target: string, value: number | null, holds: (v: number) => boolean, threshold: string) => {
    if (value === null && partial) return;
    line({ target, threshold, value, holds: value !== null && holds(value) });
  };
  // The targets; in a whole run a scenario that produced nothing prints value null and holds false.
  check('session_create / ceiling_sqlite_insert', ratio('session_create', 'ceiling_sqlite_insert'), (v) => v >= 0.35, '>= 0.35');
  check('session_get / ceiling_fastify_json', ratio('session_get', 'ceiling_fastify_json'), (v) => v >= 0.35, '>= 0.35');
  check('session_get p99_ms', r('session_get')?.p99_ms ?? null, (v) => v <= 10, '<= 10');
  check('public_quote / ceiling_fastify_json', ratio('public_quote', 'ceiling_fastify_json'), (v) => v >= 0.2, '>= 0.2');
  check('momo_attempt_create / ceiling_sqlite_insert', ratio('momo_attempt_create', 'ceiling_sqlite_insert'), (v) => v >= 0.2, '>= 0.2');
  const ingest = ratio('invoice_lines_ingest', 'ceiling_sqlite_insert');
  // One ingest request carries 100 lines: lines per second over the ceiling's inserts per second.
  check('invoice_lines_ingest lines/s / ceiling_sqlite_insert', ingest === null ? null : round(ingest * 100, 2), (v) => v >= 5, '>= 5');
  const fan = r('webhook_fanout');
  check('webhook_fanout events/s', fan && fan.requests > 0 ? fan.rps : null, (v) => v >= 4000, '>= 4000');
  check('cold_start_ms', r('cold_start_ms')?.p50_ms ?? null, (v) => v < 1000, '< 1000');
  check('idle_rss_mb', r('idle_rss_mb')?.p50_ms ?? null, (v) => v < 150, '< 150');
  check('rss_after_bench_mb', r('rss_after_bench_mb')?.p50_ms ?? null, (v) => v < 200, '< 200');
}
