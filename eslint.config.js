import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Outside server/db/: headless, and no engine-specific code (the engine seam, docs/architecture.md).
const serverImportPatterns = [
  { group: ['electron', '**/electron/**', '**/renderer/**'], message: 'server/ is headless: no Electron, no renderer code.' },
  {
    group: ['better-sqlite3', 'pg', '**/db/engine', '**/db/direct-sqlite', '**/db/sqlite-*', '**/db/postgres', '**/db/postgres-*', '**/db/*/sqlite*', '**/db/*/postgres*'],
    message: 'Engine-specific code stays in server/db/: use its engine-neutral interfaces (db/dialect, db/search, db/claim, db/read-stamp, db/reader, db/stats).',
  },
];
const engineSyntax = { selector: "Identifier[name='isPostgres']", message: 'No engine branches outside server/db/: add a capability to db/dialect (or a seam of its own) instead.' };

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', '.paydesk/', 'test-results/', 'playwright-report/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**', 'electron', 'node:*'], message: 'The renderer talks to the server over HTTP only.' }] },
      ],
    },
  },
  {
    // The payer's page ships to phones on slow networks: it reads the API's shapes as types only,
    // so the request schemas and zod stay out of its bundle (docs/checkout.md, "Page weight").
    files: ['renderer/checkout/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/shared/schemas/**', 'zod', 'zod/*'],
              allowTypeImports: true,
              message: 'The payer page imports types only from the schemas: a value import ships zod to every payer.',
            },
          ],
        },
      ],
    },
  },
  {
    // Plain Node.js scripts (npm start, check:electron): Node's globals, no TypeScript.
    files: ['scripts/**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly' },
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/server/**', '**/electron/**', '**/renderer/**', 'electron'], message: 'shared/ stands alone.' },
            { group: ['node:*'], message: 'shared/ runs in browsers and merchants\' runtimes too: web-standard APIs only, no Node modules.' },
          ],
        },
      ],
    },
  },
  {
    // The server runs headless (npm run serve, several instances): it never reaches into the
    // desktop shell or the browser code. The Electron main process may import the server.
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['electron', '**/electron/**', '**/renderer/**'], message: 'server/ is headless: no Electron, no renderer code.' }] },
      ],
    },
  },
  {
    // The engine seam: what SQLite and PostgreSQL do differently lives in server/db/, behind
    // engine-neutral interfaces (db/dialect, db/search, db/claim, db/read-stamp, db/reader,
    // db/stats, db/maintenance); everything else reads the same on both engines.
    files: ['server/**/*.ts'],
    ignores: ['server/db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serverImportPatterns,
          ],
        },
      ],
      'no-restricted-syntax': ['error', engineSyntax],
    },
  },
  {
    // Layers: the HTTP layer (server/http/) is the modules' toolbox (errors, paging, kept answers,
    // rate limits, probes); it imports no module. What it needs from one (an authenticator, the
    // webhook backlog) the app passes in (server/app.ts).
    files: ['server/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serverImportPatterns,
            { group: ['**/modules/**'], message: 'server/http/ imports no module: take what it needs as a parameter (server/app.ts passes it).' },
          ],
        },
      ],
    },
  },
  {
    // Layers: a module reaches another only through that module's public file, its index.ts;
    // its other files (routes, services, repositories) are its own. Route plugins are registered
    // by server/routes.ts alone.
    files: ['server/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serverImportPatterns,
            {
              regex: '^(\\.\\./(?!\\.\\.)[^/]+/|(\\.\\./)+modules/)',
              message: "Another module's files are its own: import from its index.ts ('../<area>'), and export there what other modules need.",
            },
          ],
        },
      ],
    },
  },
  {
    // Layers: the app around the modules (app.ts, routes.ts, compose.ts, deps.ts, main.ts), the
    // jobs and the operator CLI take from a module only what its index.ts exports, as another
    // module does; a module's other files are its own (server/db/ and tests aside). That one
    // modules never import each other both ways is scripts/module-cycles.mjs (npm run lint).
    files: ['server/**/*.ts'],
    ignores: ['server/db/**', 'server/modules/**', 'server/http/**', 'server/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serverImportPatterns,
            {
              regex: '(^|/)modules/[^/]+/',
              message: "A module's files are its own: import from its index.ts ('./modules/<area>'), and export there what the app needs.",
            },
          ],
        },
      ],
    },
  },
  {
    // Layers: domain/ holds the state machines and pure policies; it is called by modules and
    // jobs, and imports none of them (nor the HTTP layer).
    files: ['server/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...serverImportPatterns,
            { group: ['**/modules/**', '**/http/**', '**/jobs/sweeper', '**/jobs/invoice-summary-fold'], message: 'domain/ imports no module, HTTP code or job: pass what it needs in.' },
          ],
        },
      ],
    },
  },
  {
    // Browser tests take `test` from fixtures.ts: its timeout follows the pace as each test starts.
    files: ['test/e2e/**/*.ts'],
    ignores: ['test/e2e/fixtures.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@playwright/test', importNames: ['test'], message: "Import `test` from './fixtures' (paced timeouts)." }] },
      ],
    },
  },
);
