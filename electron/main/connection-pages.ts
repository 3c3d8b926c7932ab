/**
 * The two pages the desktop app shows itself, without any server: the "Connect to a server" form
 * and the "cannot reach the server" notice shown while a client-mode app retries. Both are
 * data: URLs with no script at all (the form is wired by electron/preload/connect.ts, which
 * reaches the page's DOM but exposes nothing to it) and a CSP that allows only inline styles.
 */

export const LOCAL_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'";

/** Ids the connect preload looks up; one place so the page and the preload cannot drift. */
export const CONNECT_FORM_IDS = { form: 'connect', input: 'server-url', error: 'error', status: 'status', cancel: 'cancel' } as const;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; padding: 24px 28px; color: #1f2933; background: #f5f7fa; }
h1 { font-size: 19px; margin: 0 0 8px; }
p { margin: 0 0 14px; color: #3e4c59; }
label { display: block; font-weight: 600; margin-bottom: 6px; }
input { box-sizing: border-box; width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #9aa5b1; border-radius: 6px; }
input:focus { outline: 3px solid #8ab4f8; }
.error { color: #b42318; min-height: 1.45em; margin: 8px 0 0; }
.status { color: #3e4c59; min-height: 1.45em; margin: 4px 0 0; }
.actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 18px; }
button { font: inherit; padding: 7px 16px; border-radius: 6px; border: 1px solid #9aa5b1; background: #fff; }
button[type=submit] { background: #1f5fbf; border-color: #1f5fbf; color: #fff; }
code { background: #e4e7eb; padding: 0 4px; border-radius: 4px; }
`;

function page(title: string, body: string): string {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${LOCAL_PAGE_CSP}">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

/** The form behind File → Server Connection → Connect to a Server…; `current` prefills it. */
export function connectPageUrl(current: string | null): string {
  const id = CONNECT_FORM_IDS;
  return page(
    'Connect to a Paydesk server',
    `<h1>Connect to a Paydesk server</h1>
<p>Use the Paydesk server your bank or company runs, so every desk sees the same slips and deposits.
Nothing is stored on this computer while connected.</p>
<form id="${id.form}" novalidate>
<label for="${id.input}">Server address</label>
<input id="${id.input}" name="url" type="url" required autofocus spellcheck="false" autocomplete="url"
 placeholder="https://paydesk.bank.example" value="${escapeHtml(current ?? '')}" aria-describedby="${id.error}">
<p id="${id.error}" class="error" role="alert"></p>
<p id="${id.status}" class="status" role="status"></p>
<div class="actions"><button type="button" id="${id.cancel}">Cancel</button><button type="submit">Connect</button></div>
</form>
<p>The address must start with <code>https://</code>. Paydesk checks that the server answers, then restarts connected to it.</p>`,
  );
}

/** Shown in the main window while a client-mode app cannot load the central server's back office. */
export function offlinePageUrl(serverUrl: string, reason: string, retrySeconds: number): string {
  return page(
    'Paydesk: server unreachable',
    `<h1 role="status">Server unreachable — reconnecting</h1>
<p>Paydesk cannot reach <strong>${escapeHtml(serverUrl)}</strong> (${escapeHtml(reason)}).
It tries again every ${retrySeconds} seconds and opens the back office as soon as the server answers.</p>
<p>If the address is wrong, use <strong>File → Server Connection</strong>. Nothing was recorded on this computer.</p>`,
  );
}
