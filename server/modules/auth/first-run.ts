import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { AppError } from '../../lib/errors';
import { recordAudit } from '../audit';
import { createStaff } from './staff.service';
import { staffErrors } from './staff-api';

/** How long a printed setup link works. */
export const SETUP_LINK_MINUTES = 30;

/**
 * First run: on a database without any staff account, the server prints a one-time setup link
 * (server/main.ts). The link carries a token made at start and kept hashed in this process
 * only; it works for SETUP_LINK_MINUTES, once, and only while no staff account exists. The
 * setup call (`POST /api/backoffice/v1/setup`) creates the first administrator with it; from
 * then on the sign-in page is the only way in.
 */
export interface FirstRun {
  /** A setup link when the database has no staff account (a new token each call), else null. */
  open(baseUrl: string): Promise<string | null>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

const SetupStatus = z.object({ open: z.boolean() });
const SetupBody = z.object({
  token: z.string({ error: 'is required: the token of the setup link the server printed' }).min(1).max(200),
  username: z.string().trim().min(3, { error: 'must be at least 3 characters' }).max(64),
  full_name: z.string().trim().min(1, { error: 'is required' }).max(120),
  password: z.string().min(1, { error: 'must not be empty' }).max(200),
});
const SetupDone = z.object({ id: z.string(), username: z.string(), role: z.literal('admin') });

/** The setup link's state: made once per app (server/app.ts), shared by the routes and main.ts. */
export function createFirstRun(deps: AppDeps): FirstRun & { state: { pending: { hash: Buffer; expiresAt: number } | null; busy: boolean }; noStaff(): Promise<boolean> } {
  const state = { pending: null as { hash: Buffer; expiresAt: number } | null, busy: false };
  const noStaff = async () => (await deps.db.selectFrom('staff_users').select('id').limit(1).executeTakeFirst()) === undefined;
  return {
    state,
    noStaff,
    async open(baseUrl) {
      if (!(await noStaff())) return null;
      const token = deps.ids.token('setup', 32);
      state.pending = { hash: sha256(token), expiresAt: deps.clock.now().getTime() + SETUP_LINK_MINUTES * 60_000 };
      return `${baseUrl.replace(/\/$/, '')}/backoffice/setup#token=${token}`;
    },
  };
}

export const SETUP_ROUTE = '/api/backoffice/v1/setup';

export async function firstRunRoutes(app: FastifyInstance, deps: AppDeps, firstRun: ReturnType<typeof createFirstRun>): Promise<void> {
  const { state, noStaff } = firstRun;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Back office: staff sign-in'];
  r.get('/setup', { schema: { tags, summary: 'Whether the first administrator may still be created with a setup link', response: { 200: SetupStatus, ...staffErrors } } }, async () => ({
    open: state.pending !== null && state.pending.expiresAt > deps.clock.now().getTime() && (await noStaff()),
  }));
  r.post(
    '/setup',
    { schema: { tags, summary: 'Create the first administrator with the one-time setup link printed at start', body: SetupBody, response: { 201: SetupDone, ...staffErrors } } },
    async (req, reply) => {
      const given = sha256(req.body.token);
      const pending = state.pending;
      if (!pending || pending.expiresAt <= deps.clock.now().getTime() || !timingSafeEqual(given, pending.hash)) {
        throw new AppError('UNAUTHORIZED', 'token: this setup link is not valid (wrong, used or older than 30 minutes); restart the server on the empty database for a new one');
      }
      if (state.busy) throw new AppError('STATE_CONFLICT', 'the first administrator is being created');
      state.busy = true;
      try {
        if (!(await noStaff())) {
          state.pending = null;
          throw new AppError('FORBIDDEN', 'an administrator already exists: sign in instead');
        }
        const user = await createStaff(deps.db, deps.clock, deps.ids, { username: req.body.username, password: req.body.password, role: 'admin', fullName: req.body.full_name });
        state.pending = null; // used: the link works once
        await recordAudit(deps.db, deps, { id: user.id, username: user.username, role: 'admin', ip: req.ip }, {
          action: 'staff.create',
          targetType: 'staff_user',
          targetId: user.id,
          after: { username: user.username, full_name: req.body.full_name, role: 'admin', first_run: true },
        });
        return reply.code(201).send({ id: user.id, username: user.username, role: 'admin' as const });
      } finally {
        state.busy = false;
      }
    },
  );
}
