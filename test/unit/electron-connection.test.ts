import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

// Only the module boundary is faked (ipc.ts imports types from electron; nothing here runs Electron).
vi.mock('electron', () => ({}));

const { isLoopbackHost, readConnection, ServerUrl, settingsFile, writeConnection, SettingsError } = await import('../../electron/main/connection-settings');
const { connectToServer, probeServer, useEmbedded } = await import('../../electron/main/connection-switch');
const { CONNECT_FORM_IDS, connectPageUrl, escapeHtml, LOCAL_PAGE_CSP, offlinePageUrl } = await import('../../electron/main/connection-pages');
const { registerConnectHandler } = await import('../../electron/main/ipc');
const { CONNECT_CHANNEL } = await import('../../electron/shared/ipc-channels');
const { decideNavigation } = await import('../../electron/main/navigation-guard');
const { shouldGrantPermission } = await import('../../electron/main/permission-guard');
const { isTrustedSender } = await import('../../electron/main/ipc');

const CENTRAL = 'https://paydesk.bank.example';

describe('server address rule (ServerUrl)', () => {
  it.each([
    ['https://paydesk.bank.example', CENTRAL],
    ['  https://paydesk.bank.example/backoffice/  ', CENTRAL],
    ['https://paydesk.bank.example:8443', 'https://paydesk.bank.example:8443'],
    ['http://127.0.0.1:4610', 'http://127.0.0.1:4610'],
    ['http://localhost:4610/', 'http://localhost:4610'],
    ['http://[::1]:4610', 'http://[::1]:4610'],
  ])('accepts %j as %s', (raw, origin) => {
    expect(ServerUrl.parse(raw)).toBe(origin);
  });

  it.each([
    ['http://paydesk.bank.example', /must use https:\/\/.*unencrypted/],
    ['http://10.1.2.3:4610', /must use https:\/\//],
    ['http://127.0.0.1.evil.example', /must use https:\/\//],
    ['paydesk.bank.example', /not a web address.*https:\/\//],
    ['ftp://paydesk.bank.example', /must start with https:\/\//],
    ['file:///etc/passwd', /must start with https:\/\//],
    ['https://teller:secret@paydesk.bank.example', /user name or password/],
    ['', /Enter the server address/],
  ])('refuses %j with a message a person understands', (raw, message) => {
    const result = ServerUrl.safeParse(raw);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(message);
  });

  it('knows loopback names', () => {
    expect(['localhost', 'desk.localhost', '127.0.0.1', '127.9.9.9', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['10.0.0.1', 'paydesk.bank.example', '::ffff:10.0.0.1', '0.0.0.0'].some(isLoopbackHost)).toBe(false);
  });
});

describe('the settings file in userData', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-settings-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is embedded when there is no file (the default)', () => {
    expect(readConnection(settingsFile(dir), {})).toEqual({ mode: 'embedded' });
  });

  it('round-trips a client connection, written owner-only', () => {
    writeConnection(settingsFile(dir), { mode: 'client', serverUrl: CENTRAL });
    expect(readConnection(settingsFile(dir), {})).toEqual({ mode: 'client', serverUrl: CENTRAL });
    expect(JSON.parse(readFileSync(settingsFile(dir), 'utf8'))).toEqual({ connection: { mode: 'client', serverUrl: CENTRAL } });
    if (process.platform !== 'win32') expect(statSync(settingsFile(dir)).mode & 0o777).toBe(0o600);
  });

  it('lets PAYDESK_SERVER_URL win over the file', () => {
    writeConnection(settingsFile(dir), { mode: 'embedded' });
    expect(readConnection(settingsFile(dir), { PAYDESK_SERVER_URL: 'https://central.example/' })).toEqual({ mode: 'client', serverUrl: 'https://central.example' });
  });

  it.each([
    ['{ not json', /not valid JSON/],
    [JSON.stringify({ connection: { mode: 'client', serverUrl: 'http://paydesk.bank.example' } }), /must use https/],
    [JSON.stringify({ connection: { mode: 'cloud' } }), /Fix it or delete it/],
  ])('refuses a bad file %s instead of silently using a local database', (text, message) => {
    writeFileSync(settingsFile(dir), text);
    expect(() => readConnection(settingsFile(dir), {})).toThrow(SettingsError);
    expect(() => readConnection(settingsFile(dir), {})).toThrow(message);
  });

  it('never writes a connection the rule refuses', () => {
    expect(() => writeConnection(settingsFile(dir), { mode: 'client', serverUrl: 'http://paydesk.bank.example' })).toThrow();
    expect(readConnection(settingsFile(dir), {})).toEqual({ mode: 'embedded' });
  });
});

describe('connecting from the form', () => {
  let dir: string;
  let server: Server;
  let origin: string;
  let answer: { status: number; body: string } = { status: 200, body: '{"status":"ok"}' };
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/healthz' ? answer.status : 404, { 'content-type': 'application/json' }).end(answer.body);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paydesk-connect-'));
    answer = { status: 200, body: '{"status":"ok"}' };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const deps = () => ({ file: settingsFile(dir), fetch: (u: string, init: { signal: AbortSignal; redirect: 'manual' }) => fetch(u, init), relaunch: vi.fn(), probeTimeoutMs: 2000 });

  it('saves a server that answers like Paydesk and restarts', async () => {
    const d = deps();
    await expect(connectToServer(`${origin}/backoffice/`, d)).resolves.toEqual({ ok: true, serverUrl: origin });
    expect(readConnection(d.file, {})).toEqual({ mode: 'client', serverUrl: origin });
    expect(d.relaunch).toHaveBeenCalledTimes(1);
  });

  it('refuses http:// to another machine before contacting it', async () => {
    const d = { ...deps(), fetch: vi.fn() };
    const result = await connectToServer('http://paydesk.bank.example', d);
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/must use https:\/\//) });
    expect(d.fetch).not.toHaveBeenCalled();
    expect(d.relaunch).not.toHaveBeenCalled();
    expect(readConnection(d.file, {})).toEqual({ mode: 'embedded' });
  });

  it('says when nothing answers, and saves nothing', async () => {
    const d = deps();
    const result = await connectToServer('http://127.0.0.1:9', d);
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/^Could not reach http:\/\/127\.0\.0\.1:9: .*Check the address/) });
    expect(d.relaunch).not.toHaveBeenCalled();
  });

  it('says when the server is not a Paydesk', async () => {
    answer = { status: 404, body: '{}' };
    await expect(probeServer(origin, deps())).resolves.toMatch(/answered HTTP 404 to \/healthz: it does not look like a Paydesk server/);
    answer = { status: 200, body: '<html>router login</html>' };
    await expect(probeServer(origin, deps())).resolves.toMatch(/not like a Paydesk server/);
  });

  it('says when the server is too slow', async () => {
    const hanging = () => new Promise<never>((_r, reject) => setTimeout(() => reject(Object.assign(new Error('aborted'), { name: 'TimeoutError' })), 10));
    await expect(probeServer(CENTRAL, { fetch: hanging, probeTimeoutMs: 3000 })).resolves.toMatch(/no answer within 3 seconds/);
  });

  it('goes back to embedded on request', () => {
    const d = deps();
    writeConnection(d.file, { mode: 'client', serverUrl: CENTRAL });
    useEmbedded(d);
    expect(readConnection(d.file, {})).toEqual({ mode: 'embedded' });
    expect(d.relaunch).toHaveBeenCalledTimes(1);
  });
});

describe('the connect channel', () => {
  const connectWindow = { id: 1 };
  function register() {
    let handler: ((event: object, ...args: unknown[]) => unknown) | undefined;
    const connect = vi.fn(async (url: string) => ({ ok: true, url }));
    registerConnectHandler({ handle: (channel: string, fn: typeof handler) => void (channel === CONNECT_CHANNEL && (handler = fn)) } as never, (s) => s.id === connectWindow.id, connect);
    return { call: (sender: object, frame: object | null, ...args: unknown[]) => handler?.({ sender, senderFrame: frame }, ...args), connect };
  }

  it('answers the connection window only', async () => {
    const { call, connect } = register();
    await expect(call(connectWindow, { url: 'data:text/html,…', parent: null }, CENTRAL)).resolves.toEqual({ ok: true, url: CENTRAL });
    expect(() => call({ id: 2 }, { url: `${CENTRAL}/backoffice/`, parent: null }, 'https://evil.example')).toThrow(/not the connection window/);
    expect(() => call(connectWindow, { url: 'data:', parent: {} }, CENTRAL)).toThrow(/not the connection window/);
    expect(() => call(connectWindow, null, CENTRAL)).toThrow(/not the connection window/);
    expect(connect).toHaveBeenCalledTimes(1);
  });

  it('takes exactly one string', () => {
    const { call, connect } = register();
    for (const args of [[], [42], [CENTRAL, 'extra'], [{ url: CENTRAL }]]) expect(() => call(connectWindow, { url: 'data:', parent: null }, ...args)).toThrow(/invalid arguments/);
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('the app’s own pages', () => {
  const text = (dataUrl: string) => decodeURIComponent(dataUrl.slice(dataUrl.indexOf(',') + 1));

  it('the connect form: no script, a strict CSP, the current address prefilled and escaped', () => {
    const html = text(connectPageUrl('https://a.example/"><script>x</script>'));
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`content="${LOCAL_PAGE_CSP}"`);
    expect(LOCAL_PAGE_CSP).toContain("default-src 'none'");
    expect(html).toContain(escapeHtml('https://a.example/"><script>x</script>'));
    for (const id of Object.values(CONNECT_FORM_IDS)) expect(html).toContain(`id="${id}"`);
  });

  it('the connect preload looks up the ids the page has', () => {
    const preload = readFileSync(join(import.meta.dirname, '../../electron/preload/connect.ts'), 'utf8');
    for (const id of Object.values(CONNECT_FORM_IDS)) expect(preload).toContain(`getElementById('${id}')`);
    expect(preload).toContain(`CONNECT_CHANNEL_NAME = '${CONNECT_CHANNEL}'`);
  });

  it('the offline notice names the server and says it is reconnecting', () => {
    const html = text(offlinePageUrl(CENTRAL, 'ERR_CONNECTION_REFUSED', 5));
    expect(html).toContain('Server unreachable — reconnecting');
    expect(html).toContain(CENTRAL);
    expect(html).toContain('every 5 seconds');
    expect(html).not.toMatch(/<script/i);
  });
});

describe('guards on a central server’s origin', () => {
  it('keep the window on that back office and send the old loopback origin to the browser', () => {
    expect(decideNavigation(`${CENTRAL}/backoffice/review`, CENTRAL)).toBe('allow');
    expect(decideNavigation('http://127.0.0.1:4610/backoffice/', CENTRAL)).toBe('open-external');
    expect(decideNavigation('http://paydesk.bank.example/backoffice/', CENTRAL)).toBe('open-external');
  });

  it('grant the camera to the central scan page only', () => {
    const scan = (url: string) => shouldGrantPermission({ permission: 'media', requestingUrl: url, isMainFrame: true, mediaTypes: ['video'] }, CENTRAL);
    expect(scan(`${CENTRAL}/backoffice/teller/scan`)).toBe(true);
    expect(scan(`${CENTRAL}/backoffice/review`)).toBe(false);
    expect(scan('http://127.0.0.1:4610/backoffice/teller/scan')).toBe(false);
  });

  it('trust the central back office as the bridge’s caller', () => {
    expect(isTrustedSender({ url: `${CENTRAL}/backoffice/`, parent: null }, CENTRAL)).toBe(true);
    expect(isTrustedSender({ url: 'http://127.0.0.1:4610/backoffice/', parent: null }, CENTRAL)).toBe(false);
  });
});

describe('the connect form, wired by its preload', () => {
  /** Just enough DOM for wireConnectForm: elements by id, listeners, text, attributes. */
  function fakeDocument(value: string) {
    const listeners = new Map<string, (event: { preventDefault(): void }) => void>();
    const element = (id: string) => ({
      id,
      value,
      textContent: '',
      disabled: false,
      attributes: {} as Record<string, string>,
      focused: false,
      setAttribute(name: string, v: string) {
        this.attributes[name] = v;
      },
      focus() {
        this.focused = true;
      },
      addEventListener(type: string, fn: (event: { preventDefault(): void }) => void) {
        listeners.set(`${id}:${type}`, fn);
      },
      querySelector: () => submit,
    });
    const submit = element('submit');
    const els = Object.fromEntries(Object.values(CONNECT_FORM_IDS).map((id) => [id, element(id)]));
    const doc = { getElementById: (id: string) => els[id] ?? null };
    const fire = (id: string, type: string) => {
      const preventDefault = vi.fn();
      listeners.get(`${id}:${type}`)?.({ preventDefault });
      return preventDefault;
    };
    return { doc, els, submit, fire };
  }
  const settle = () => new Promise((r) => setTimeout(r, 20));

  it('shows the refusal in the alert, marks the field invalid, and never navigates', async () => {
    const { wireConnectForm } = await import('../../electron/preload/connect');
    const { doc, els, submit, fire } = fakeDocument('http://paydesk.bank.example');
    const dir = mkdtempSync(join(tmpdir(), 'paydesk-form-'));
    const relaunch = vi.fn();
    try {
      wireConnectForm(doc as never, (url) => connectToServer(url, { file: settingsFile(dir), fetch: vi.fn(), relaunch }), vi.fn());
      const preventDefault = fire(CONNECT_FORM_IDS.form, 'submit');
      expect(preventDefault).toHaveBeenCalled();
      expect(els[CONNECT_FORM_IDS.status]?.textContent).toBe('Checking the server…');
      expect(submit.disabled).toBe(true);
      await settle();
      expect(els[CONNECT_FORM_IDS.error]?.textContent).toMatch(/must use https:\/\//);
      expect(els[CONNECT_FORM_IDS.input]?.attributes['aria-invalid']).toBe('true');
      expect(els[CONNECT_FORM_IDS.input]?.focused).toBe(true);
      expect(submit.disabled).toBe(false);
      expect(relaunch).not.toHaveBeenCalled();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says it is restarting once the server is accepted; Cancel closes the window', async () => {
    const { wireConnectForm } = await import('../../electron/preload/connect');
    const { doc, els, fire } = fakeDocument(CENTRAL);
    const close = vi.fn();
    wireConnectForm(doc as never, async (url) => ({ ok: true, serverUrl: url }), close);
    fire(CONNECT_FORM_IDS.form, 'submit');
    await settle();
    expect(els[CONNECT_FORM_IDS.status]?.textContent).toBe(`Connected to ${CENTRAL}. Paydesk is restarting…`);
    expect(els[CONNECT_FORM_IDS.error]?.textContent).toBe('');
    fire(CONNECT_FORM_IDS.cancel, 'click');
    expect(close).toHaveBeenCalledTimes(1);
  });
});
