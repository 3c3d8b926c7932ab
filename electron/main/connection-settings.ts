import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * Where the desktop app gets its back office from (docs/desktop.md, "Connecting to a central
 * Paydesk"): the embedded server on this computer (the default), or a central Paydesk that many
 * desks share. Kept in a small JSON file in userData, not in the database: in client mode there is
 * no local database, and the setting must be readable before any server exists.
 */
const SETTINGS_FILE_NAME = 'paydesk-settings.json';

export const settingsFile = (userDataDir: string): string => join(userDataDir, SETTINGS_FILE_NAME);

/** Loopback names: plain http to them never leaves the machine (a developer's or a tunnel's server). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * A central server address as typed by a person: its origin (scheme, host, port). https is
 * required, because staff passwords and tokens travel over it; plain http only to loopback.
 * A path is tolerated (someone pastes the back office's address) and dropped: Paydesk is served
 * at the root of its origin.
 */
export const ServerUrl = z
  .string({ error: 'Enter the server address, for example https://paydesk.bank.example' })
  .trim()
  .min(1, { error: 'Enter the server address, for example https://paydesk.bank.example' })
  .max(2048, { error: 'The address is too long' })
  .transform((raw, ctx) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: `“${raw}” is not a web address: it must start with https://, for example https://paydesk.bank.example` });
      return z.NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: `The address must start with https:// (it starts with ${url.protocol}//)` });
      return z.NEVER;
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      ctx.addIssue({
        code: 'custom',
        message: `The address must use https:// — staff passwords would cross the network unencrypted over http://${url.host}. Plain http:// is only accepted for this computer (localhost, 127.0.0.1).`,
      });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'The address must not contain a user name or password' });
      return z.NEVER;
    }
    return url.origin;
  });

export const Connection = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('embedded') }),
  z.strictObject({ mode: z.literal('client'), serverUrl: ServerUrl }),
]);
export type Connection = z.output<typeof Connection>;

const SettingsFile = z.object({ connection: Connection }).loose();

export const EMBEDDED: Connection = Object.freeze({ mode: 'embedded' });

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/** The first zod issue as one sentence, for a dialog. */
export function firstMessage(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'invalid value';
}

/**
 * The connection to use at launch. PAYDESK_SERVER_URL (set by IT in a shortcut or a managed
 * environment) wins over the file; a missing file means embedded. A file that exists but is not
 * valid is an error, never a silent fall-back to embedded: a teller would then record deposits
 * in a local database nobody at the bank sees.
 */
export function readConnection(file: string, env: NodeJS.ProcessEnv): Connection {
  const fromEnv = env.PAYDESK_SERVER_URL?.trim();
  if (fromEnv) {
    const parsed = ServerUrl.safeParse(fromEnv);
    if (!parsed.success) throw new SettingsError(`PAYDESK_SERVER_URL: ${firstMessage(parsed.error)}`);
    return { mode: 'client', serverUrl: parsed.data };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMBEDDED;
    throw new SettingsError(`${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SettingsError(`${file} is not valid JSON. Fix it or delete it (Paydesk then uses this computer).`);
  }
  const parsed = SettingsFile.safeParse(json);
  if (!parsed.success) throw new SettingsError(`${file}: ${firstMessage(parsed.error)}. Fix it or delete it (Paydesk then uses this computer).`);
  return parsed.data.connection;
}

/** Writes the connection atomically (a half-written file would stop the next launch). */
export function writeConnection(file: string, connection: Connection): void {
  const checked = Connection.parse(connection);
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ connection: checked }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}
