/**
 * `npm run collection`: writes the Postman collection and the local-staging environment in
 * docs/collections/ from the OpenAPI document the server generates. `--check` writes nothing
 * and exits 1 when the committed files are out of date (the test suite does the same check).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../../server/app';
import { loadConfig } from '../../server/config';
import { migrate, openDatabase } from '../../server/db/database';
import { systemClock } from '../../server/lib/clock';
import { randomIds } from '../../server/lib/ids';
import { LOCAL_STAGING_URL, localStagingEnvironment, toFileText, toPostmanCollection, type OpenApiInput } from './postman';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const COLLECTION_FILE = join(ROOT, 'docs/collections/paydesk.postman_collection.json');
export const ENVIRONMENT_FILE = join(ROOT, 'docs/collections/paydesk-local-staging.postman_environment.json');

/** The document of a fresh server on an empty, throw-away data directory. */
export async function openApiDocument(): Promise<OpenApiInput> {
  const dataDir = mkdtempSync(join(tmpdir(), 'paydesk-openapi-'));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: LOCAL_STAGING_URL, RATE_LIMIT_PER_MIN: '0' });
  const database = openDatabase(config.databaseFile);
  try {
    await migrate(database.db);
    const app = await build({ db: database.db, clock: systemClock, ids: randomIds, config, logger: false });
    await app.ready();
    const doc = app.swagger() as unknown as OpenApiInput;
    await app.close();
    return doc;
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** File path → the text it should hold. */
export async function collectionFiles(): Promise<Record<string, string>> {
  const doc = await openApiDocument();
  return { [COLLECTION_FILE]: toFileText(toPostmanCollection(doc)), [ENVIRONMENT_FILE]: toFileText(localStagingEnvironment()) };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const files = await collectionFiles();
  let stale = 0;
  for (const [file, text] of Object.entries(files)) {
    const name = relative(ROOT, file);
    if (check) {
      let current = '';
      try {
        current = readFileSync(file, 'utf8');
      } catch {
        // missing counts as out of date
      }
      if (current !== text) {
        stale++;
        console.error(`${name} is out of date: run npm run collection`);
      }
      continue;
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`wrote ${name}`);
  }
  process.exitCode = stale ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
