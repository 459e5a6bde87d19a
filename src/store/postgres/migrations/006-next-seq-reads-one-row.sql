-- A turn's start and finish number the session's next message from its last
-- one: read as the one row at the end of the primary key (a backward index
-- scan that stops there) instead of MAX(seq), which the planner, with the few
-- rows its estimates expect, plans as an aggregate over every message of the
-- session, so each turn read the whole session twice. Same results.

CREATE OR REPLACE FUNCTION sb_begin_turn(p_turn TEXT, p_user TEXT, p_session TEXT, p_query TEXT, p_trace TEXT, p_at TEXT, p_metadata JSONB)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
DECLARE
  cut TEXT[] := '{}';
  running RECORD;
  next_seq INTEGER;
BEGIN
  INSERT INTO sb_sessions (user_id, session_id, created_at, updated_at) VALUES (p_user, p_session, p_at, p_at)
    ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = EXCLUDED.updated_at;
  SELECT seq INTO next_seq FROM sb_messages WHERE user_id = p_user AND session_id = p_session ORDER BY seq DESC LIMIT 1;
  next_seq := COALESCE(next_seq, 0);
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

CREATE OR REPLACE FUNCTION sb_finish_turn(p_turn TEXT, p_outcome TEXT, p_content TEXT, p_at TEXT, p_metadata JSONB)
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
  SELECT seq INTO next_seq FROM sb_messages WHERE user_id = turn.user_id AND session_id = turn.session_id ORDER BY seq DESC LIMIT 1;
  next_seq := COALESCE(next_seq, 0) + 1;
  INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
    VALUES (turn.user_id, turn.session_id, next_seq, p_turn, 'assistant', p_content,
            jsonb_build_object('trace_id', turn.trace_id, 'outcome', p_outcome) || COALESCE(p_metadata, '{}'::jsonb), p_at)
    ON CONFLICT DO NOTHING;
  RETURN TRUE;
END $$;

CREATE OR REPLACE FUNCTION sb_finish_turn_recorded(p_turn TEXT, p_outcome TEXT, p_content TEXT, p_at TEXT, p_metadata JSONB,
                                                   p_said TEXT, p_agents TEXT, p_record TEXT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
DECLARE
  turn RECORD;
  next_seq INTEGER;
BEGIN
  SELECT user_id, session_id, trace_id INTO turn FROM sb_turns WHERE turn_id = p_turn;
  IF NOT FOUND THEN RETURN FALSE; END IF;
  -- Same lock order as sb_begin_turn: the session first, then the turn.
  PERFORM 1 FROM sb_sessions WHERE user_id = turn.user_id AND session_id = turn.session_id FOR UPDATE;
  IF p_record IS NULL THEN
    UPDATE sb_turns SET status = p_outcome, finished_at = p_at WHERE turn_id = p_turn AND status = 'running';
  ELSE
    UPDATE sb_turns
      SET status = p_outcome, finished_at = p_at,
          tenant = CASE WHEN strpos(user_id, '/') > 0 THEN split_part(user_id, '/', 1) ELSE '' END,
          outcome = p_said, agents = p_agents, record = p_record
      WHERE turn_id = p_turn AND status = 'running';
  END IF;
  IF NOT FOUND THEN RETURN FALSE; END IF;
  SELECT seq INTO next_seq FROM sb_messages WHERE user_id = turn.user_id AND session_id = turn.session_id ORDER BY seq DESC LIMIT 1;
  next_seq := COALESCE(next_seq, 0) + 1;
  INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
    VALUES (turn.user_id, turn.session_id, next_seq, p_turn, 'assistant', p_content,
            jsonb_build_object('trace_id', turn.trace_id, 'outcome', p_outcome) || COALESCE(p_metadata, '{}'::jsonb), p_at)
    ON CONFLICT DO NOTHING;
  RETURN TRUE;
END $$;
