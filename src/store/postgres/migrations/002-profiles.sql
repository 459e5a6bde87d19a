-- Long-term profile facts per user (memory layers): one row per (user, key);
-- value is the JSON text of a string or number.
CREATE TABLE sb_profiles (
  user_id TEXT NOT NULL,
  fact_key TEXT NOT NULL,
  value TEXT NOT NULL,
  hits INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  turn_id TEXT,
  first_seen TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, fact_key)
);
