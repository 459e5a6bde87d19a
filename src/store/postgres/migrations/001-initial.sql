-- Sessions, turns (write-ahead), the transcript, turn events, task records,
-- leases and key-value entries. Times written by the application are
-- ISO-8601 text; expiry (leases, key-value) is epoch milliseconds on the
-- database clock, so replicas with skewed clocks agree.
CREATE TABLE sb_sessions (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id)
);
CREATE INDEX sb_sessions_by_id ON sb_sessions (session_id);

CREATE TABLE sb_turns (
  turn_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  status TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX sb_turns_by_session ON sb_turns (user_id, session_id, started_at);
CREATE INDEX sb_turns_by_start ON sb_turns (started_at);

CREATE TABLE sb_messages (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  turn_id TEXT,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  metadata JSONB,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id, seq)
);
CREATE UNIQUE INDEX sb_messages_turn_role ON sb_messages (turn_id, role) WHERE turn_id IS NOT NULL;

CREATE TABLE sb_events (
  turn_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (turn_id, seq)
);

CREATE TABLE sb_tasks (
  task_id TEXT PRIMARY KEY,
  turn_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  inputs JSONB NOT NULL,
  status TEXT NOT NULL,
  dispatches INTEGER NOT NULL,
  detail TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sb_tasks_by_turn ON sb_tasks (turn_id);

CREATE TABLE sb_leases (
  lease_key TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE sb_kv (
  kv_key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX sb_kv_by_expiry ON sb_kv (expires_at);

CREATE FUNCTION sb_now_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS
$$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT $$;

-- Starts a turn in one round trip: the session row (its lock serialises the
-- session's writers), earlier turns left running closed as interrupted, the
-- turn row and the user's message. Repeating it for the same turn changes nothing.
CREATE FUNCTION sb_begin_turn(p_turn TEXT, p_user TEXT, p_session TEXT, p_query TEXT, p_trace TEXT, p_at TEXT, p_metadata JSONB)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
DECLARE
  cut TEXT[] := '{}';
  running RECORD;
  next_seq INTEGER;
BEGIN
  INSERT INTO sb_sessions (user_id, session_id, created_at, updated_at) VALUES (p_user, p_session, p_at, p_at)
    ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = EXCLUDED.updated_at;
  SELECT COALESCE(MAX(seq), 0) INTO next_seq FROM sb_messages WHERE user_id = p_user AND session_id = p_session;
  FOR running IN
    SELECT turn_id FROM sb_turns
    WHERE user_id = p_user AND session_id = p_session AND status = 'running' AND turn_id <> p_turn
    ORDER BY started_at, turn_id
  LOOP
    UPDATE sb_turns SET status = 'interrupted', finished_at = p_at WHERE turn_id = running.turn_id;
    next_seq := next_seq + 1;
    INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
      VALUES (p_user, p_session, next_seq, running.turn_id, 'assistant', '', '{"outcome":"interrupted"}', p_at)
      ON CONFLICT DO NOTHING;
    cut := cut || running.turn_id;
  END LOOP;
  INSERT INTO sb_turns (turn_id, user_id, session_id, status, trace_id, started_at)
    VALUES (p_turn, p_user, p_session, 'running', p_trace, p_at)
    ON CONFLICT (turn_id) DO NOTHING;
  IF FOUND THEN
    INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
      VALUES (p_user, p_session, next_seq + 1, p_turn, 'user', p_query, p_metadata, p_at)
      ON CONFLICT DO NOTHING;
  END IF;
  RETURN cut;
END $$;

-- Finishes a running turn in one round trip: its outcome and the answer row.
-- False (nothing written) when the turn is unknown or already closed.
CREATE FUNCTION sb_finish_turn(p_turn TEXT, p_outcome TEXT, p_content TEXT, p_at TEXT, p_metadata JSONB)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
  turn RECORD;
  next_seq INTEGER;
BEGIN
  SELECT user_id, session_id, trace_id INTO turn FROM sb_turns WHERE turn_id = p_turn;
  IF NOT FOUND THEN RETURN FALSE; END IF;
  -- Same lock order as sb_begin_turn: the session first, then the turn.
  PERFORM 1 FROM sb_sessions WHERE user_id = turn.user_id AND session_id = turn.session_id FOR UPDATE;
  UPDATE sb_turns SET status = p_outcome, finished_at = p_at WHERE turn_id = p_turn AND status = 'running';
  IF NOT FOUND THEN RETURN FALSE; END IF;
  SELECT COALESCE(MAX(seq), 0) + 1 INTO next_seq FROM sb_messages WHERE user_id = turn.user_id AND session_id = turn.session_id;
  INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
    VALUES (turn.user_id, turn.session_id, next_seq, p_turn, 'assistant', p_content,
            jsonb_build_object('trace_id', turn.trace_id, 'outcome', p_outcome) || COALESCE(p_metadata, '{}'::jsonb), p_at)
    ON CONFLICT DO NOTHING;
  RETURN TRUE;
END $$;
