import { DuplicateKeyError } from '../store.ts';

/**
 * Unique-constraint violations as the drivers report them: better-sqlite3 sets extended
 * result codes, Postgres (pg and PGlite) the SQLSTATE `23505`.
 */
const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);
const POSTGRES_UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' && (SQLITE_UNIQUE_CODES.has(code) || code === POSTGRES_UNIQUE_VIOLATION);
}

/**
 * Runs an insert and turns a unique violation into `DuplicateKeyError` naming the table, so
 * callers can tell "already exists" from real failures without knowing the dialect.
 */
export async function insertOrDuplicate<T>(table: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (isUniqueViolation(error)) {
      const detail = error instanceof Error ? `: ${error.message}` : '';
      const duplicate = new DuplicateKeyError(`Duplicate key in table ${table}${detail}`);
      duplicate.cause = error;
      throw duplicate;
    }
    throw error;
  }
}
