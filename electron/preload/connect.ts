/// <reference lib="dom" />
import { ipcRenderer } from 'electron';

/**
 * The "Connect to a server" window's preload. Its page (electron/main/connection-pages.ts) has no
 * script at all: this wires the form and exposes nothing to the page. The ids and the channel
 * (CONNECT_CHANNEL in electron/shared/ipc-channels.ts) are repeated here rather than imported: two
 * preload entries importing one module would get a shared chunk, which a sandboxed preload cannot
 * require. test/unit/electron-connection.test.ts checks they match.
 */
export const CONNECT_CHANNEL_NAME = 'paydesk:connect-to-server';

type ConnectResult = { ok: true; serverUrl: string } | { ok: false; message: string };

export function wireConnectForm(doc: Document, invoke: (url: string) => Promise<ConnectResult>, close: () => void): void {
  const form = doc.getElementById('connect') as HTMLFormElement | null;
  const input = doc.getElementById('server-url') as HTMLInputElement | null;
  const error = doc.getElementById('error');
  const status = doc.getElementById('status');
  const submit = form?.querySelector<HTMLButtonElement>('button[type=submit]') ?? null;
  if (!form || !input || !error || !status) return;
  doc.getElementById('cancel')?.addEventListener('click', () => close());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    status.textContent = 'Checking the server…';
    input.setAttribute('aria-invalid', 'false');
    if (submit) submit.disabled = true;
    invoke(input.value)
      .then((result) => {
        if (result.ok) {
          status.textContent = `Connected to ${result.serverUrl}. Paydesk is restarting…`;
          return;
        }
        status.textContent = '';
        error.textContent = result.message;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      })
      .catch((err: unknown) => {
        status.textContent = '';
        error.textContent = `Could not save the connection: ${err instanceof Error ? err.message : String(err)}`;
      })
      .finally(() => {
        if (submit) submit.disabled = false;
      });
  });
}

if (typeof window !== 'undefined') {
  window.addEventListener('DOMContentLoaded', () =>
    wireConnectForm(
      document,
      (url) => ipcRenderer.invoke(CONNECT_CHANNEL_NAME, url) as Promise<ConnectResult>,
      () => window.close(),
    ),
  );
}
