import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../deps';
import { LanguageChange, PasswordChange, StaffLogin, StaffLoginResponse, StaffMe } from '../../../shared/schemas/backoffice';
import { login, logout, me } from './staff-auth';
import { checkCsrf, checkOrigin, clearStaffCookie, fromBackOffice, setStaffCookie } from './staff-cookie';
import { AppError } from '../../lib/errors';
import { changeOwnPassword, setOwnLanguage } from './staff-password';
import { requireStaff, staffErrors } from '../../http/staff-access';

const errors = staffErrors;

/** Staff sign-in, sign-out, own password and `/me` (registered inside the back-office scope). */
export async function staffAuthRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const authTags = ['Back office: staff sign-in'];
  r.post(
    '/auth/login',
    {
      schema: {
        tags: authTags,
        summary: 'Sign in: a bearer token for the other calls (and, for the back office page, which sends x-paydesk-csrf: 1, an HttpOnly cookie)',
        body: StaffLogin,
        response: { 200: StaffLoginResponse, ...errors },
      },
      // Before the body is read, so neither a form nor a cross-site page spends a guess: a JSON
      // body needs a CORS preflight from another origin (never granted), and a browser names
      // the page's origin on a cross-site POST.
      onRequest: (req, _reply, done) => {
        const type = req.headers['content-type'] ?? '';
        if (!/^application\/json\s*(;|$)/i.test(type)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'sign-in takes a JSON body only: Content-Type must be application/json');
        checkOrigin(req, 'sign in from the back office page or an API client');
        done();
      },
    },
    async (req, reply) => {
      // Only the back office page gets the cookie: a cross-site form cannot send the header,
      // so it cannot sign a browser in to someone else's account either.
      if (fromBackOffice(req)) checkCsrf(req);
      const result = await login(deps, req.body.username, req.body.password, req.ip);
      if (fromBackOffice(req)) setStaffCookie(req, reply, result.token, deps.config.publicBaseUrl);
      return result;
    },
  );
  r.post(
    '/auth/password',
    {
      schema: {
        tags: authTags,
        summary: 'Change your own password (required after an administrator created or reset the account); signs out your other sessions',
        body: PasswordChange,
        response: { 204: z.null(), ...errors },
      },
    },
    async (req, reply) => {
      await changeOwnPassword(deps, requireStaff(req), req.ip, req.body);
      return reply.code(204).send(null);
    },
  );
  r.post(
    '/auth/logout',
    { schema: { tags: authTags, summary: 'Revoke the token this call is made with', response: { 204: z.null(), ...errors } } },
    async (req, reply) => {
      await logout(deps, requireStaff(req), req.ip);
      clearStaffCookie(req, reply, deps.config.publicBaseUrl);
      return reply.code(204).send(null);
    },
  );
  r.get('/me', { schema: { tags: authTags, summary: 'The signed-in staff member', response: { 200: StaffMe, ...errors } } }, async (req) =>
    ({ ...(await me(deps, requireStaff(req))), time_zone: deps.config.timeZone }),
  );
  r.post(
    '/me/language',
    {
      schema: {
        tags: authTags,
        summary: 'Choose the language you read the back office in (en or fr; null: follow the browser); answers as GET /me',
        body: LanguageChange,
        response: { 200: StaffMe, ...errors },
      },
    },
    async (req) => {
      const staff = requireStaff(req);
      await setOwnLanguage(deps, staff, req.ip, req.body.language);
      return { ...(await me(deps, staff)), time_zone: deps.config.timeZone };
    },
  );
}
