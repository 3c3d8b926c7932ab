import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { connectDatabase, migrate, openDatabase } from '../db/database';
import type { Db } from '../db/database';
import { schemaStatus } from '../db/schema-version';
import { withDb } from './with-db';
import { systemClock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { randomIds } from '../lib/ids';
import { createIntegration, listIntegrations, revokeApiKey } from '../modules/integrations';
import { createStaff } from '../modules/auth';
import { ownAddresses, webhookCommands } from '../modules/webhooks';
import { dbCommands } from '../modules/retention';
import { dbCopyCommands } from './db-copy';
import { confirmBankTransfer } from '../modules/payments';
import { composeDeps } from '../compose';
import type { Command, Flags } from './command';
import { doctor, doctorTable } from './doctor';
import { commandHelp, overallHelp, wantsHelp } from './help';
import { buildInfo } from '../version';

/**
 * Operator CLI (`npm run admin -- <command>`, docs/operations.md "The operator CLI"). Works on
 * the same DATA_DIR as a running server (WAL + busy timeout); applies migrations itself on an
 * empty one. `--help` (or `-h`) after any command explains it, `--version` names the build.
 */

class UsageError extends Error {}

const need = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
};
const opt = (flags: Flags, name: string): string | undefined => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);

/**
 * `--password-stdin` keeps the password out of shell history and the process list:
 * `printf '%s' "$PW" | npm run -s admin -- staff:create … --password-stdin`. One trailing
 * newline (what `echo` adds) is dropped.
 */
async function passwordOf(flags: Flags): Promise<string> {
  if (!flags['password-stdin']) {
    if (typeof flags.password !== 'string' || flags.password === '') throw new UsageError('--password is required (or --password-stdin)');
    return flags.password;
  }
  if (flags.password !== undefined) throw new UsageError('give --password or --password-stdin, not both');
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads the password from a pipe, not a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!password) throw new UsageError('--password-stdin: standard input was empty');
  return password;
}


const COMMANDS: Record<string, Command> = {
  doctor: {
    summary: 'Check the configuration (every bad variable), database, schema, Redis, data folder and free disk',
    usage: 'doctor [--json]',
    examples: ['npm run admin -- doctor', 'DATABASE_URL=postgres://paydesk@127.0.0.1/paydesk REDIS_URL=redis://127.0.0.1:6379 npm run -s admin -- doctor --json'],
    options: {},
    run: async () => {
      const result = await doctor();
      return { json: result, text: doctorTable(result), exitCode: result.ok ? 0 : 1 };
    },
  },
  ...webhookCommands, // webhooks:tail, :redeliver, :recover, :health, :rotate-secret, :enable
  ...dbCommands, // db:stats, db:prune (retention, docs/operations.md)
  ...dbCopyCommands, // db:copy: a desk's SQLite database into PostgreSQL (docs/operations.md)
  'integration:create': {
    summary: 'Create a merchant (or reuse it by name), a test integration, its API key and optionally a webhook endpoint',
    usage: 'integration:create --merchant NAME [--webhook-url URL] [--json]',
    examples: ['npm run admin -- integration:create --merchant "Accra Water" --json', 'npm run admin -- integration:create --merchant Shop --webhook-url http://127.0.0.1:9000/hooks'],
    options: { merchant: { type: 'string' }, 'webhook-url': { type: 'string' }, live: { type: 'boolean' } },
    run: async (f) => {
      if (f.live) throw new UsageError('--live is refused: live key creation is not enabled on this deployment');
      const created = await withDb((db) => createIntegration(db, systemClock, randomIds, { merchantName: need(f, 'merchant'), webhookUrl: opt(f, 'webhook-url'), ownAddresses: ownAddresses(loadConfig()) }));
      return {
        json: created,
        text: [
          `merchant_id     ${created.merchant_id}`,
          `integration_id  ${created.integration_id}`,
          `api_key         ${created.api_key}`,
          `webhook_secret  ${created.webhook_secret ?? '(none: no --webhook-url)'}`,
          '',
          'The API key and webhook secret are shown this once; store them now.',
        ].join('\n'),
      };
    },
  },
  'integration:list': {
    summary: 'List integrations with their mode, key prefixes and webhook endpoints (never a key or secret)',
    usage: 'integration:list [--json]',
    examples: ['npm run admin -- integration:list --json'],
    options: {},
    run: async () => {
      const integrations = await withDb((db) => listIntegrations(db));
      return {
        json: { integrations },
        text: integrations.length
          ? integrations
              .map((i) => `${i.integration_id}  ${i.merchant_name}  ${i.mode}  keys: ${i.api_keys.map((k) => `${k.prefix}…${k.revoked_at ? ' (revoked)' : ''}`).join(', ')}`)
              .join('\n')
          : 'no integrations yet: npm run admin -- integration:create --merchant NAME',
      };
    },
  },
  'key:revoke': {
    summary: 'Revoke an API key (by id, prefix or the key itself); every instance refuses it within seconds',
    usage: 'key:revoke --key KEY_ID|PREFIX|KEY [--json]',
    examples: ['npm run admin -- key:revoke --key ak_test_AbCd'],
    options: { key: { type: 'string' } },
    run: async (f) => {
      const revoked = await withDb((db) => revokeApiKey(db, systemClock, need(f, 'key')));
      return { json: revoked, text: `revoked ${revoked.prefix}… (${revoked.id}) at ${revoked.revoked_at}` };
    },
  },
  'db:migrate': {
    summary: 'Apply the schema migrations this build brings (the one schema step of a rolling deploy)',
    usage: 'db:migrate [--json]',
    examples: ['DATABASE_URL=postgres://paydesk@127.0.0.1/paydesk npm run admin -- db:migrate'],
    options: {},
    run: async () => {
      // The one step of a rolling deploy that changes the schema (docs/operations.md, "Upgrades"):
      // on PostgreSQL `serve` never migrates. Kysely's migrator takes its own lock, so two runs at
      // once apply each migration once.
      const config = loadConfig();
      const database = connectDatabase(config);
      try {
        const applied = await migrate(database.db);
        const status = await schemaStatus(database.db);
        const current = status.applied[status.applied.length - 1] ?? null;
        return {
          json: { engine: database.engine, applied, current },
          text: applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}; the schema is at ${current}` : `nothing to apply: the schema is current at ${current}`,
        };
      } finally {
        await database.close();
      }
    },
  },
  'db:backup': {
    summary: 'Copy the SQLite database consistently while the server runs (0600 file)',
    usage: 'db:backup --out FILE [--json]',
    examples: ['npm run admin -- db:backup --out /var/backups/paydesk/paydesk-$(date +%F).sqlite'],
    options: { out: { type: 'string' } },
    run: async (f) => {
      // SQLite's online backup: a consistent copy while the server keeps writing (docs/operations.md).
      const out = resolve(need(f, 'out'));
      if (existsSync(out)) throw new UsageError(`--out ${out} already exists; choose a new file`);
      const config = loadConfig();
      if (config.databaseUrl) throw new UsageError('db:backup copies the SQLite file; with DATABASE_URL use pg_dump (docs/deployment.md, "Backup")');
      if (!existsSync(config.databaseFile)) throw new UsageError(`no database at ${config.databaseFile}; check DATA_DIR`);
      mkdirSync(dirname(out), { recursive: true });
      // A copy of the database holds the same secrets: created 0600 (and refused if it appeared meanwhile).
      closeSync(openSync(out, 'wx', 0o600));
      const database = openDatabase(config.databaseFile);
      try {
        const started = Date.now();
        const progress = await database.sqlite.backup(out);
        return {
          json: { file: out, pages: progress.totalPages, bytes: statSync(out).size, duration_ms: Date.now() - started },
          text: `backed up ${config.databaseFile} to ${out} (${progress.totalPages} pages)`,
        };
      } finally {
        await database.close();
      }
    },
  },
  'staff:create': {
    summary: 'Create a back-office user: teller, supervisor, finance or admin',
    usage: 'staff:create --username U (--password-stdin | --password P) --role teller|supervisor|finance|admin [--branch BRANCH_ID|BRANCH_CODE] [--merchant MERCHANT_ID] [--full-name NAME] [--json]',
    examples: ["printf '%s' \"$PW\" | npm run -s admin -- staff:create --username ama --role admin --password-stdin"],
    options: {
      username: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      role: { type: 'string' },
      branch: { type: 'string' },
      merchant: { type: 'string' },
      'full-name': { type: 'string' },
    },
    run: async (f) => {
      const password = await passwordOf(f);
      const user = await withDb(async (db) =>
        createStaff(db, systemClock, randomIds, {
          username: need(f, 'username'),
          password,
          role: need(f, 'role'),
          // A branch by its id, or by its code as printed on receipts (GCB-ACC-HS), any case.
          branchId: await branchByIdOrCode(db, opt(f, 'branch')),
          merchantId: opt(f, 'merchant'),
          fullName: opt(f, 'full-name'),
        }),
      );
      return { json: user, text: `created ${user.role} ${user.username} (${user.id})` };
    },
  },
  'sandbox:bank-transfer': {
    summary: "Simulate the sandbox bank's notification that a transfer arrived",
    usage: 'sandbox:bank-transfer --reference PAYMENT_REF --amount N [--json]',
    examples: ['npm run admin -- sandbox:bank-transfer --reference PAYMENT_REF --amount 10150'],
    options: { reference: { type: 'string' }, amount: { type: 'string' } },
    run: async (f) => {
      // The sandbox bank's "transfer received" notification (docs/sandbox.md). A wrong amount
      // is refused (409 PAYMENT_AMOUNT_MISMATCH) and the session stays payable.
      const reference = need(f, 'reference').trim();
      const amountText = need(f, 'amount').trim();
      const amount = Number(amountText);
      if (!/^\d+$/.test(amountText) || !Number.isSafeInteger(amount) || amount < 1) {
        throw new UsageError('--amount must be a whole number of minor units, at least 1');
      }
      // A completed session's event gets its webhook deliveries in this process too (the composed outbox).
      const status = await withDb((db) => confirmBankTransfer(composeDeps({ db, clock: systemClock, ids: randomIds, config: loadConfig(), logger: false }), reference, amount));
      return {
        json: status,
        text: `transfer ${reference} of ${amount} received: attempt ${status.attempt_reference} ${status.status}; session ${status.session_id} ${status.session_status}`,
      };
    },
  },
};

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    const about = rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    process.stdout.write(`${about ? commandHelp(rest[0]!, about) : overallHelp(COMMANDS)}\n`);
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    const { version, commit } = buildInfo();
    process.stdout.write(rest.includes('--json') ? `${JSON.stringify({ version, commit, node: process.versions.node })}\n` : `paydesk ${version} (commit ${commit}, Node ${process.versions.node})\n`);
    return 0;
  }
  if (!name) {
    process.stderr.write(`paydesk admin: a command is required; run 'npm run admin -- --help' for the list\n`);
    return 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`paydesk admin: unknown command ${name}; run 'npm run admin -- --help' for the list\n`);
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(`${commandHelp(name, command)}\n`);
    return 0;
  }
  try {
    const { values } = parseArgs({ args: rest, options: { ...command.options, json: { type: 'boolean' } }, strict: true, allowPositionals: false });
    const out = await command.run(values as Flags);
    // A streaming command (webhooks:tail) has printed its lines already.
    if (!out.streamed) process.stdout.write(values.json ? `${JSON.stringify(out.json)}\n` : `${out.text}\n`);
    return out.exitCode ?? 0;
  } catch (err) {
    const message =
      err instanceof UsageError || err instanceof AppError
        ? err.message
        : err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')
          ? err.message
          : `failed: ${(err as Error).message}`;
    // Bad input is one line on stderr, so the usage hint shares it.
    const usage = err instanceof UsageError || (err instanceof TypeError && 'code' in err) ? ` (usage: npm run admin -- ${command.usage})` : '';
    process.stderr.write(`paydesk admin ${name}: ${message.split('\n')[0]}${usage}\n`);
    return err instanceof UsageError || err instanceof TypeError ? 2 : 1;
  }
}

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`paydesk admin: ${(err as Error).message}\n`);
    process.exit(1);
  },
);

/** A branch named on the command line by its id or its code (any case); unknown values pass through and are refused by createStaff. */
async function branchByIdOrCode(db: Db, value: string | undefined): Promise<string | undefined> {
  if (!value) return undefined;
  const row = await db
    .selectFrom('branches')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', value), eb('code', '=', value.toUpperCase())]))
    .executeTakeFirst();
  return row?.id ?? value;
}
