import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { AppError } from '../../lib/errors';
import { recordAudit } from '../audit';
import { createStaff } from './staff.service';
import { staffErrors } from '../../http/staff-access';

/** How long a printed setup link works. */
export const SETUP_LINK_MINUTES = 30;

/**
 * First run: on a database without any staff account, the server prints a one-time setup link
 * (server/main.ts). The link's token is kept in the database, hashed (`setup_links`, migration
 * 0044), so any instance sharing the database accepts a link another printed, and a restart
 * does not lose it. It works for SETUP_LINK_MINUTES, once, and only while no staff account
 * exists. The setup call (`POST /api/backoffice/v1/setup`) creates the first administrator with
 * it; from then on the sign-in page is the only way in.
 */
export interface FirstRun {
  /** A setup link when the database has no staff account (a new token each call), else null. */
  open(baseUrl: string): Promise<string | null>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const SetupStatus = z.object({
  open: z.boolean().describe('A setup link may still create the first administrator'),
  set_up: z.boolean().describe('A staff account exists: the sign-in page is the way in'),
});
const SetupBody = z.object({
  token: z.string({ error: 'is required: the token of the setup link the server printed' }).min(1).max(200),
  username: z.string().trim().min(3, { error: 'must be at least 3 characters' }).max(64),
  full_name: z.string().trim().min(1, { error: 'is required' }).max(120),
  password: z.string().min(1, { error: 'must not be empty' }).max(200),
});
const SetupDone = z.object({ id: z.string(), username: z.string(), role: z.literal('admin') });

const noStaffIn = async (db: Db) => (await db.selectFrom('staff_users').select('id').limit(1).executeTakeFirst()) === undefined;

/** The setup links of the app's database: made once per app (server/app.ts), shared by the routes and main.ts. */
export function createFirstRun(deps: AppDeps): FirstRun {
  return {
    async open(baseUrl) {
      if (!(await noStaffIn(deps.db))) return null;
      const token = deps.ids.token('setup', 32);
      const now = deps.clock.now();
      // Links past their time are of no use to anyone: each new one clears them.
      await deps.db.deleteFrom('setup_links').where('expires_at', '<=', now.toISOString()).execute();
      await deps.db
        .insertInto('setup_links')
        .values({ id: deps.ids.uuid(), token_hash: sha256(token), created_at: now.toISOString(), expires_at: new Date(now.getTime() + SETUP_LINK_MINUTES * 60_000).toISOString(), used_at: null })
        .execute();
      return `${baseUrl.replace(/\/$/, '')}/backoffice/setup#token=${token}`;
    },
  };
}

const NOT_VALID = 'token: this setup link is not valid (wrong, used or older than 30 minutes); restart the server on the empty database for a new one';

export const SETUP_ROUTE = '/api/backoffice/v1/setup';

export async function firstRunRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Back office: staff sign-in'];
  r.get('/setup', { schema: { tags, summary: 'Whether the first administrator may still be created with a setup link', response: { 200: SetupStatus, ...staffErrors } } }, async () => {
    const live = await deps.db.selectFrom('setup_links').select('id').where('used_at', 'is', null).where('expires_at', '>', deps.clock.now().toISOString()).limit(1).executeTakeFirst();
    const setUp = !(await noStaffIn(deps.db));
    return { open: live !== undefined && !setUp, set_up: setUp };
  });
  r.post(
    '/setup',
    { schema: { tags, summary: 'Create the first administrator with the one-time setup link printed at start', body: SetupBody, response: { 201: SetupDone, ...staffErrors } } },
    async (req, reply) => {
      const now = deps.clock.now().toISOString();
      // One transaction: the link is taken (a row lock on PostgreSQL, the write lock on SQLite:
      // of two instances given the same link at once, one takes it, the other finds it used) and
      // the administrator created; a refused username or password rolls back and leaves the link
      // usable.
      const user = await deps.db.transaction().execute(async (trx) => {
        const taken = await trx
          .updateTable('setup_links')
          .set({ used_at: now })
          .where('token_hash', '=', sha256(req.body.token))
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1) throw new AppError('UNAUTHORIZED', NOT_VALID);
        if (!(await noStaffIn(trx))) throw new AppError('FORBIDDEN', 'an administrator already exists: sign in instead');
        const made = await createStaff(trx, deps.clock, deps.ids, { username: req.body.username, password: req.body.password, role: 'admin', fullName: req.body.full_name });
        await recordAudit(trx, deps, { id: made.id, username: made.username, role: 'admin', ip: req.ip }, {
          action: 'staff.create',
          targetType: 'staff_user',
          targetId: made.id,
          after: { username: made.username, full_name: req.body.full_name, role: 'admin', first_run: true },
        });
        return made;
      });
      return reply.code(201).send({ id: user.id, username: user.username, role: 'admin' as const });
    },
  );
}
