/**
 * The SQL family a migration targets. Kysely's schema builder hides most differences, but
 * not auto-increment keys or collations, so migrations are built per dialect.
 */
export type MigrationDialect = 'sqlite' | 'postgres';
