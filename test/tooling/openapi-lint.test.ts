import { resolve } from 'node:path';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

// `redocly lint` with the repository's redocly.yaml (the recommended rules; any rule turned off
// is listed there with its reason), through @redocly/openapi-core's lint API: the CLI wants Node 22.
describe('redocly lint on /docs/json', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reports no error and no warning with the recommended rules', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const config = await loadConfig({ configPath: resolve('redocly.yaml') });
    const problems = await lintFromString({ source: res.body, absoluteRef: resolve('openapi.json'), config });
    const report = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    expect(report).toEqual([]);
  });

  it('catches what the recommended rules forbid (an operation without security), so a clean result means something', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/docs/json' })).body) as { paths: Record<string, Record<string, { security?: unknown }>> };
    delete doc.paths['/api/v1/sessions']!.post!.security;
    const config = await loadConfig({ configPath: resolve('redocly.yaml') });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: resolve('openapi.json'), config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}`)).toContain('error security-defined');
  });
});
