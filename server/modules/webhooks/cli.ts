import type { Command, Flags } from '../../cli/command';
import { withDb } from '../../cli/with-db';
import { systemClock } from '../../lib/clock';
import { invalid } from '../../lib/errors';
import { randomIds } from '../../lib/ids';
import { ALL_MERCHANTS, enableEndpoint, endpointHealth, recoverFailedDeliveries, redeliverEvent, rotateEndpointSecret } from './webhooks.service';
import { attemptsAfter, tailStart } from './webhooks.repository';

/**
 * The operator CLI's webhook commands (`npm run admin -- webhooks:…`), merged into
 * server/cli/admin.ts's command table. They write to the same DATA_DIR as a running server,
 * whose dispatcher picks queued redeliveries up within its poll interval (0.5 s).
 *
 * `webhooks:tail` streams: one line per attempt as it is recorded (`--json`: one JSON object
 * per line), until Ctrl-C / SIGTERM, `--for SECONDS` or `--max N` attempts.
 */

const str = (f: Flags, name: string): string | undefined => (typeof f[name] === 'string' && (f[name] as string).trim() !== '' ? (f[name] as string).trim() : undefined);
const need = (f: Flags, name: string): string => {
  const v = str(f, name);
  if (v === undefined) throw invalid(`--${name}`, 'is required');
  return v;
};
function num(f: Flags, name: string, fallback: number, min: number, max: number): number {
  const v = str(f, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) throw invalid(`--${name}`, `must be a number from ${min} to ${max}`);
  return n;
}


type TailRow = Awaited<ReturnType<typeof attemptsAfter>>[number];

function tailLine(a: TailRow): string {
  const status = a.status_code === null ? '---' : String(a.status_code);
  const what = a.error && a.outcome === 'failed' ? `  ${a.error}` : '';
  const retry = a.next_attempt_at ? `  retry at ${a.next_attempt_at}` : '';
  return `${a.started_at}  ${a.event_id}  ${a.event_type}  ${a.kind}#${a.attempt_number}  → ${a.url}  ${status}  ${a.latency_ms} ms  ${a.outcome}${what}${retry}  [delivery ${a.delivery_status}]`;
}

export const webhookCommands: Record<string, Command> = {
  'webhooks:tail': {
    summary: 'Follow webhook delivery attempts as they are made (Ctrl-C stops)',
    usage: 'webhooks:tail [--json] [--endpoint ID] [--last N] [--for SECONDS] [--max N]',
    examples: ['npm run admin -- webhooks:tail --last 20', 'npm run admin -- webhooks:tail --json --for 60'],
    options: { endpoint: { type: 'string' }, last: { type: 'string' }, for: { type: 'string' }, max: { type: 'string' } },
    run: async (f) => {
      const last = num(f, 'last', 10, 0, 1000);
      const forS = num(f, 'for', 0, 0, 7 * 86_400);
      const max = num(f, 'max', 0, 0, 1_000_000);
      const endpointId = str(f, 'endpoint');
      const json = f.json === true;
      let printed = 0;
      await withDb(async (db) => {
        let stop = false;
        let wakeUp: () => void = () => {};
        const onSignal = () => {
          stop = true;
          wakeUp();
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        const deadline = forS > 0 ? Date.now() + forS * 1000 : Infinity;
        try {
          let seq = await tailStart(db, last);
          if (!json) process.stdout.write(`following webhook attempts${endpointId ? ` to ${endpointId}` : ''} (Ctrl-C to stop)\n`);
          while (!stop && Date.now() < deadline && (max === 0 || printed < max)) {
            const rows = await attemptsAfter(db, seq, 500, { endpointId });
            for (const { seq: s, ...a } of rows) {
              seq = s;
              if (max > 0 && printed >= max) break;
              process.stdout.write(json ? `${JSON.stringify(a)}\n` : `${tailLine({ seq: s, ...a })}\n`);
              printed++;
            }
            if (rows.length === 0) {
              await new Promise<void>((r) => {
                const timer = setTimeout(r, Math.max(0, Math.min(300, deadline - Date.now())));
                wakeUp = () => (clearTimeout(timer), r());
              });
            }
          }
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      });
      return { json: { object: 'webhooks.tail', printed }, text: '', streamed: true };
    },
  },
  'webhooks:redeliver': {
    summary: 'Queue one event for delivery again, to every endpoint or one',
    usage: 'webhooks:redeliver --event EVENT_ID [--endpoint ENDPOINT_ID] [--json]',
    examples: ['npm run admin -- webhooks:redeliver --event EVENT_ID'],
    options: { event: { type: 'string' }, endpoint: { type: 'string' } },
    run: async (f) => {
      const result = await withDb((db) => redeliverEvent(db, systemClock, { eventId: need(f, 'event'), endpointId: str(f, 'endpoint') }, ALL_MERCHANTS));
      return {
        json: result,
        text: [`queued ${result.deliveries.length} manual redelivery(ies) of ${result.event_id}:`, ...result.deliveries.map((d) => `  ${d.id} → ${d.endpoint_url}`)].join('\n'),
      };
    },
  },
  'webhooks:recover': {
    summary: 'Queue again the deliveries that failed in a time range (after a receiver outage)',
    usage: 'webhooks:recover --since ISO_TIME [--until ISO_TIME] [--endpoint ENDPOINT_ID] [--json]',
    examples: ['npm run admin -- webhooks:recover --since 2026-06-01T08:00:00Z --until 2026-06-01T12:00:00Z'],
    options: { since: { type: 'string' }, until: { type: 'string' }, endpoint: { type: 'string' } },
    run: async (f) => {
      const until = str(f, 'until');
      const endpoint = str(f, 'endpoint');
      const result = await withDb((db) =>
        recoverFailedDeliveries(db, systemClock, { since: need(f, 'since'), ...(until ? { until } : {}), ...(endpoint ? { endpoint_id: endpoint } : {}) }, ALL_MERCHANTS),
      );
      return { json: result, text: `queued ${result.recovered} failed deliveries again; ${result.skipped_disabled_endpoints} skipped (endpoint disabled)` };
    },
  },
  'webhooks:health': {
    summary: "Show each endpoint's backlog, success rate, latency and last error",
    usage: 'webhooks:health [--endpoint ENDPOINT_ID] [--window-hours H] [--json]',
    examples: ['npm run admin -- webhooks:health', 'npm run admin -- webhooks:health --window-hours 1 --json'],
    options: { endpoint: { type: 'string' }, 'window-hours': { type: 'string' } },
    run: async (f) => {
      const result = await withDb((db) =>
        endpointHealth(db, systemClock, { endpointId: str(f, 'endpoint'), windowHours: num(f, 'window-hours', 24, 1, 2160) }, ALL_MERCHANTS),
      );
      return {
        json: result,
        text: result.endpoints.length
          ? result.endpoints
              .map(
                (e) =>
                  `${e.endpoint_id}  ${e.status}${e.disabled_reason ? ` (${e.disabled_reason})` : ''}  ${e.url}\n` +
                  `  pending ${e.deliveries.pending}  held ${e.deliveries.held}  succeeded ${e.deliveries.succeeded}  failed ${e.deliveries.failed}  ` +
                  `success ${e.success_rate === null ? '-' : `${Math.round(e.success_rate * 100)}%`} of ${e.attempts_in_window} in ${e.window_hours} h  ` +
                  `avg ${e.avg_latency_ms ?? '-'} ms  last error: ${e.last_error ?? '-'}`,
              )
              .join('\n')
          : 'no webhook endpoints',
      };
    },
  },
  'webhooks:rotate-secret': {
    summary: 'Give an endpoint a new signing secret; the old one keeps signing for an overlap',
    usage: 'webhooks:rotate-secret --endpoint ENDPOINT_ID [--overlap-hours 24] [--json]',
    examples: ['npm run admin -- webhooks:rotate-secret --endpoint ENDPOINT_ID --overlap-hours 24'],
    options: { endpoint: { type: 'string' }, 'overlap-hours': { type: 'string' } },
    run: async (f) => {
      const result = await withDb((db) =>
        rotateEndpointSecret(db, systemClock, randomIds, need(f, 'endpoint'), { overlapHours: num(f, 'overlap-hours', 24, 0, 168) }, ALL_MERCHANTS),
      );
      return {
        json: result,
        text: `new secret ${result.secret}\n${result.previous_secret_expires_at ? `the old secret also signs until ${result.previous_secret_expires_at}` : 'the old secret stopped signing now'}\nThe secret is shown this once; store it now.`,
      };
    },
  },
  'webhooks:enable': {
    summary: 'Enable a disabled endpoint again; its held deliveries are sent in event order',
    usage: 'webhooks:enable --endpoint ENDPOINT_ID [--json]',
    examples: ['npm run admin -- webhooks:enable --endpoint ENDPOINT_ID'],
    options: { endpoint: { type: 'string' } },
    run: async (f) => {
      const result = await withDb((db) => enableEndpoint(db, systemClock, need(f, 'endpoint'), ALL_MERCHANTS));
      return {
        json: result,
        text: `endpoint ${result.id} is active again; ${result.released_deliveries} held deliveries are being sent, oldest event first\n(deliveries that failed before it was disabled: webhooks:recover --since …)`,
      };
    },
  },
};
