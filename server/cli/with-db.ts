import { loadConfig, type Config } from '../config';
import { connectDatabase, migrate, type Db } from '../db/database';

/**
 * One CLI command's database: what the environment names (DATABASE_URL, else DATA_DIR), brought
 * up to this build's schema first (the CLI works on an empty DATA_DIR; a schema newer
 * than this build is refused by migrate), and closed when the command ends.
 * docs/deployment.md says why this also migrates PostgreSQL.
 */
export async function withDb<T>(fn: (db: Db, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = connectDatabase(config);
  try {
    await migrate(database.db);
    return await fn(database.db, config);
  } finally {
    await database.close();
  }
}
