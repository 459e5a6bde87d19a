/**
 * The SQLite schema as numbered migrations, applied in order at open. The
 * applied version lives in `schema_version` (one row per migration), as in
 * Postgres, so a file written by an older release is upgraded in place.
 */
import type Database from 'better-sqlite3';

const MIGRATIONS: readonly string[] = [
  // 1: sessions and the transcript (the tables of the first release).
  `CREATE TABLE IF NOT EXISTS sb_sessions (
     user_id TEXT NOT NULL, session_id TEXT NOT NULL,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (user_id, session_id));
   CREATE INDEX IF NOT EXISTS sb_sessions_by_id ON sb_sessions (session_id);
   CREATE TABLE IF NOT EXISTS sb_messages (
     user_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL,
     role TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT, created_at TEXT NOT NULL,
     PRIMARY KEY (user_id, session_id, seq));`,
  // 2: turns (write-ahead), events, task records, leases, key-value.
  `ALTER TABLE sb_messages ADD COLUMN turn_id TEXT;
   CREATE UNIQUE INDEX sb_messages_turn_role ON sb_messages (turn_id, role) WHERE turn_id IS NOT NULL;
   CREATE TABLE sb_turns (
     turn_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
     status TEXT NOT NULL, trace_id TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT);
   CREATE INDEX sb_turns_by_session ON sb_turns (user_id, session_id, started_at);
   CREATE INDEX sb_turns_by_start ON sb_turns (started_at);
   CREATE TABLE sb_events (
     turn_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
     PRIMARY KEY (turn_id, seq));
   CREATE TABLE sb_tasks (
     task_id TEXT PRIMARY KEY, turn_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,
     agent_id TEXT NOT NULL, inputs TEXT NOT NULL, status TEXT NOT NULL, dispatches INTEGER NOT NULL,
     detail TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE INDEX sb_tasks_by_turn ON sb_tasks (turn_id);
   CREATE TABLE sb_leases (lease_key TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
   CREATE TABLE sb_kv (kv_key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL);`,
  // 3: long-term profile facts per user.
  `CREATE TABLE sb_profiles (
     user_id TEXT NOT NULL, fact_key TEXT NOT NULL, value TEXT NOT NULL, hits INTEGER NOT NULL,
     session_id TEXT NOT NULL, turn_id TEXT, first_seen TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (user_id, fact_key));`,
  // 4: the record of each finished turn (GET /v1/turns, the console), on the turn's own row.
  `ALTER TABLE sb_turns ADD COLUMN tenant TEXT;
   ALTER TABLE sb_turns ADD COLUMN outcome TEXT;
   ALTER TABLE sb_turns ADD COLUMN agents TEXT;
   ALTER TABLE sb_turns ADD COLUMN record TEXT;
   CREATE INDEX sb_turns_by_tenant ON sb_turns (tenant, started_at) WHERE record IS NOT NULL;`,
  // 5: tasks of the A2A server, per owner.
  `CREATE TABLE sb_a2a_tasks (
     owner TEXT NOT NULL, task_id TEXT NOT NULL, context_id TEXT NOT NULL, state TEXT NOT NULL,
     body TEXT NOT NULL, updated_at TEXT NOT NULL,
     PRIMARY KEY (owner, task_id));
   CREATE INDEX sb_a2a_tasks_by_update ON sb_a2a_tasks (owner, updated_at, task_id);`,
];

/** Applies the migrations the file does not have yet, each in its own transaction. */
export function migrateSqlite(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = db.prepare<[], { version: number | null }>('SELECT MAX(version) AS version FROM schema_version').get()?.version ?? 0;
  for (let index = applied; index < MIGRATIONS.length; index++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[index]!);
      db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(index + 1, new Date().toISOString());
    }).immediate();
  }
}
