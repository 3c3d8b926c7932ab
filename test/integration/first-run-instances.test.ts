import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build } from '../../server/app';
import { connectDatabase, type OpenedDatabase } from '../../server/db/database';
import { randomIds } from '../../server/lib/ids';
import { createOutbox } from '../../server/modules/webhooks/outbox';
import { createTestApp, type TestContext } from '../support/app';
import { onPostgres } from '../support/database';

/**
 * The setup link lives in the database: a link one instance printed works on another instance
 * of the same database (several instances behind a proxy, or a restart between printing and
 * using it), once, and not after its 30 minutes.
 */
describe('first-run setup link across instances', () => {
  let t: TestContext;
  let second: { app: FastifyInstance; database: OpenedDatabase };
  beforeEach(async () => {
    t = await createTestApp();
    // A second instance: its own connection to the same database (file or PostgreSQL), its own app.
    const database = connectDatabase(t.config, 'testOnlyUnsynced');
    const app = await build({ db: database.db, clock: t.clock, ids: randomIds, config: t.config, logger: false, outbox: createOutbox() });
    await app.ready();
    second = { app, database };
  });
  afterEach(async () => {
    await second.app.close();
    await second.database.close();
    await t.close();
  });

  const setup = (app: FastifyInstance, body: unknown) => app.inject({ method: 'POST', url: '/api/backoffice/v1/setup', payload: body as object });
  const isOpen = async (app: FastifyInstance) => (await app.inject({ method: 'GET', url: '/api/backoffice/v1/setup' })).json().open as boolean;
  const tokenOf = (link: string) => new URL(link).hash.replace('#token=', '');
  const body = { username: 'kofi.admin', full_name: 'Kofi Mensah', password: 'first admin pass 2026' };

  it('printed by one instance, used on the other; a second use is refused on either', async () => {
    expect(await isOpen(second.app)).toBe(false);
    const link = await t.app.firstRun.open('http://127.0.0.1:4610');
    const token = tokenOf(link!);
    // Stored hashed: the token itself is nowhere in the database.
    const rows = await t.database.db.selectFrom('setup_links').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]).toMatchObject({ used_at: null });

    expect(await isOpen(second.app)).toBe(true);
    const made = await setup(second.app, { ...body, token });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json()).toMatchObject({ username: 'kofi.admin', role: 'admin' });
    expect((await t.database.db.selectFrom('setup_links').select('used_at').executeTakeFirstOrThrow()).used_at).toEqual(expect.any(String));

    // Used: refused on both instances, whoever tries.
    expect((await setup(second.app, { ...body, username: 'other.admin', token })).statusCode).toBe(401);
    expect((await setup(t.app, { ...body, username: 'other.admin', token })).statusCode).toBe(401);
    expect(await isOpen(t.app)).toBe(false);
    const login = await t.app.inject({ method: 'POST', url: '/api/backoffice/v1/auth/login', payload: { username: 'kofi.admin', password: body.password } });
    expect(login.statusCode).toBe(200);
    expect(await t.app.firstRun.open('http://127.0.0.1:4610')).toBeNull();
  });

  it('survives the instance that printed it: closed, its link still works on the other', async () => {
    const link = await t.app.firstRun.open('http://127.0.0.1:4610');
    await t.app.close(); // a restart (or the instance gone): nothing of the link was in its memory
    const made = await setup(second.app, { ...body, token: tokenOf(link!) });
    expect(made.statusCode, made.body).toBe(201);
  });

  it('expired after 30 minutes: refused on the other instance, which then says no link is open', async () => {
    const link = await t.app.firstRun.open('http://127.0.0.1:4610');
    t.clock.advanceSeconds(29 * 60);
    expect(await isOpen(second.app)).toBe(true);
    t.clock.advanceSeconds(2 * 60);
    expect(await isOpen(second.app)).toBe(false);
    const late = await setup(second.app, { ...body, token: tokenOf(link!) });
    expect(late.statusCode).toBe(401);
    expect(late.json().error.message).toMatch(/^token: /);
    // A fresh link (from either instance) works; printing it clears the expired one.
    const fresh = await second.app.firstRun.open('http://127.0.0.1:4610');
    expect(await t.database.db.selectFrom('setup_links').select('id').execute()).toHaveLength(1);
    expect((await setup(t.app, { ...body, token: tokenOf(fresh!) })).statusCode).toBe(201);
  });

  it('a refused password leaves the link usable; a wrong token is refused', async () => {
    const token = tokenOf((await t.app.firstRun.open('http://127.0.0.1:4610'))!);
    expect((await setup(second.app, { ...body, token: `${token}x` })).statusCode).toBe(401);
    const weak = await setup(second.app, { ...body, password: 'short', token });
    expect(weak.statusCode).toBe(400);
    expect((await t.database.db.selectFrom('setup_links').select('used_at').executeTakeFirstOrThrow()).used_at).toBeNull();
    expect((await setup(t.app, { ...body, token })).statusCode).toBe(201);
  });

  it.skipIf(!onPostgres)('two instances given the same link at once: one administrator, the other refused', async () => {
    const token = tokenOf((await t.app.firstRun.open('http://127.0.0.1:4610'))!);
    const answers = await Promise.all([setup(t.app, { ...body, token }), setup(second.app, { ...body, username: 'yaw.admin', token })]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 401]);
    expect(await t.database.db.selectFrom('staff_users').select('username').execute()).toHaveLength(1);
  });
});
