import { firstMessage, ServerUrl, writeConnection, type Connection } from './connection-settings';

export type ConnectResult = { ok: true; serverUrl: string } | { ok: false; message: string };

export interface SwitchDeps {
  /** The settings file (connection-settings.ts `settingsFile`). */
  file: string;
  /** Electron's net.fetch in the app (the OS certificate store, proxies): a bank's own CA works. */
  fetch: (url: string, init: { signal: AbortSignal; redirect: 'manual' }) => Promise<{ status: number; json(): Promise<unknown> }>;
  /** Restarts the app in the new mode (app.relaunch + quit: the embedded server stops cleanly). */
  relaunch(): void;
  probeTimeoutMs?: number;
}

/**
 * Whether a Paydesk answers at `origin`: GET /healthz must give 200 `{ "status": "ok" }`. Saving an
 * address nobody answers at would leave the desk on a "reconnecting" page after the restart, so
 * the person typing it is told now, in words.
 */
export async function probeServer(origin: string, deps: Pick<SwitchDeps, 'fetch' | 'probeTimeoutMs'>): Promise<string | null> {
  const timeoutMs = deps.probeTimeoutMs ?? 8000;
  let res: { status: number; json(): Promise<unknown> };
  try {
    res = await deps.fetch(new URL('/healthz', origin).toString(), { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (err) {
    const e = err as Error;
    const why = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${Math.round(timeoutMs / 1000)} seconds` : e.message;
    return `Could not reach ${origin}: ${why}. Check the address and that this computer can reach the server (network, proxy, firewall, certificate).`;
  }
  if (res.status !== 200) return `${origin} answered HTTP ${res.status} to /healthz: it does not look like a Paydesk server.`;
  const body = await res.json().catch(() => null);
  if (!body || typeof body !== 'object' || (body as { status?: unknown }).status !== 'ok') {
    return `${origin} answered, but not like a Paydesk server (no {"status":"ok"} at /healthz).`;
  }
  return null;
}

/** The form's submit: validate, check the server answers, save, restart connected to it. */
export async function connectToServer(raw: string, deps: SwitchDeps): Promise<ConnectResult> {
  const parsed = ServerUrl.safeParse(raw);
  if (!parsed.success) return { ok: false, message: firstMessage(parsed.error) };
  const problem = await probeServer(parsed.data, deps);
  if (problem) return { ok: false, message: problem };
  writeConnection(deps.file, { mode: 'client', serverUrl: parsed.data });
  deps.relaunch();
  return { ok: true, serverUrl: parsed.data };
}

/** Back to the embedded server on this computer (the default). */
export function useEmbedded(deps: Pick<SwitchDeps, 'file' | 'relaunch'>): void {
  const embedded: Connection = { mode: 'embedded' };
  writeConnection(deps.file, embedded);
  deps.relaunch();
}
