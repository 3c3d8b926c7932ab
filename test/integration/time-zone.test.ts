import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';
import { call, staff } from '../support/backoffice';
import { configProblems, loadConfig } from '../../server/config';

/**
 * The instance's time zone (TZ, an IANA name, Africa/Accra by default) is what staff screens name
 * beside their times: GET /me returns it. Every stored time and every CSV stays UTC.
 */
describe('the instance’s time zone', () => {
  const apps: TestContext[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('is Africa/Accra by default and TZ otherwise, returned by GET /me to every role', async () => {
    const t = await createTestApp();
    apps.push(t);
    for (const role of ['teller', 'supervisor', 'admin'] as const) {
      const res = await call(t, await staff(t, role), 'GET', '/me');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ time_zone: 'Africa/Accra' });
    }
    const abidjan = await createTestApp({ env: { TZ: 'Africa/Abidjan' } });
    apps.push(abidjan);
    expect((await call(abidjan, await staff(abidjan, 'teller'), 'GET', '/me')).json().time_zone).toBe('Africa/Abidjan');
  });

  it('refuses a TZ that is no IANA zone, naming the variable; an empty one is the default', () => {
    expect(configProblems({ TZ: 'Mars/Olympus' })).toEqual(['TZ: must be an IANA time zone name, like Africa/Accra or Africa/Abidjan']);
    expect(loadConfig({ TZ: '' }).timeZone).toBe('Africa/Accra');
    expect(loadConfig({ TZ: 'Africa/Nairobi' }).timeZone).toBe('Africa/Nairobi');
  });
});
