import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../support/app';

const MARKER = '<!-- generated-client-example';

/** The TypeScript block that follows the marker in docs/merchant-api.md: the test runs what the docs show. */
function documentedExample(): string {
  const doc = readFileSync(resolve('docs/merchant-api.md'), 'utf8');
  const at = doc.indexOf(MARKER);
  expect(at, 'docs/merchant-api.md lost its generated-client example').toBeGreaterThan(-1);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at));
  expect(block).not.toBeNull();
  return block![1]!;
}

let previous: ts.Program | undefined; // reused so the second compile does not re-read Node's and the client's types

/** Compiles with the strict options an integrator would use; returns the diagnostics as text. */
function compile(dir: string, entry: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    typeRoots: [join(dir, 'node_modules', '@types')],
    skipLibCheck: true,
    outDir: dir,
  };
  const program = ts.createProgram([entry], options, undefined, previous);
  previous = program;
  const emitted = program.emit();
  return [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

function run(file: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('a client generated from /docs/json (openapi-typescript + openapi-fetch)', () => {
  let t: TestContext;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp({ publicBaseUrl: null });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    dir = mkdtempSync(join(tmpdir(), 'paydesk-client-'));
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles the documented example and, run against a real server, pays a session in the sandbox', async () => {
    const doc = (await (await fetch(`${base}/docs/json`)).json()) as Parameters<typeof openapiTS>[0];
    writeFileSync(join(dir, 'paydesk-api.d.ts'), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, 'example.ts'), documentedExample());

    expect(compile(dir, join(dir, 'example.ts'))).toEqual([]);

    const m = await t.merchant();
    const out = await run(join(dir, 'example.js'), { PAYDESK_URL: base, PAYDESK_API_KEY: m.api_key });
    expect(out.code, out.stderr).toBe(0);
    const [id, status, amount] = out.stdout.trim().split(' ');
    expect(id).toMatch(/^cs_test_/);
    expect([status, amount]).toEqual(['success', '18500']);
    const row = await t.database.db.selectFrom('checkout_sessions').select(['status']).where('id', '=', id!).executeTakeFirstOrThrow();
    expect(row.status).toBe('success');
  });

  it('catches a wrong call at compile time (the generated types carry the document)', () => {
    writeFileSync(join(dir, 'wrong.ts'), documentedExample().replace("operator: 'mtn'", "operator: 'not-a-network'"));
    const errors = compile(dir, join(dir, 'wrong.ts'));
    expect(errors.join('\n')).toMatch(/not-a-network/);
  });
});
