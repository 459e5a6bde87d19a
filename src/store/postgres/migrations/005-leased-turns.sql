-- A turn's session lease taken in its start's statement and let go in its
-- finish's (decision 0050), and the finish writing the turn row once.

-- Takes the lease (free, expired or already this holder's) and, only when it
-- was taken, starts the turn as sb_begin_turn does. NULL (nothing written)
-- when another holder has the lease.
CREATE FUNCTION sb_begin_leased_turn(p_turn TEXT, p_user TEXT, p_session TEXT, p_query TEXT, p_trace TEXT, p_at TEXT, p_metadata JSONB,
                                     p_lease TEXT, p_holder TEXT, p_ttl_ms BIGINT)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sb_leases (lease_key, holder, expires_at) VALUES (p_lease, p_holder, sb_now_ms() + p_ttl_ms)
    ON CONFLICT (lease_key) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
    WHERE sb_leases.expires_at <= sb_now_ms() OR sb_leases.holder = EXCLUDED.holder;
  IF NOT FOUND THEN RETURN NULL; END IF;
  RETURN sb_begin_turn(p_turn, p_user, p_session, p_query, p_trace, p_at, p_metadata);
END $$;

-- As before (sb_finish_turn, then the record), but the turn row is updated
-- once: its outcome and its record in one new row version instead of two.
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
  SELECT COALESCE(MAX(seq), 0) + 1 INTO next_seq FROM sb_messages WHERE user_id = turn.user_id AND session_id = turn.session_id;
  INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
    VALUES (turn.user_id, turn.session_id, next_seq, p_turn, 'assistant', p_content,
            jsonb_build_object('trace_id', turn.trace_id, 'outcome', p_outcome) || COALESCE(p_metadata, '{}'::jsonb), p_at)
    ON CONFLICT DO NOTHING;
  RETURN TRUE;
END $$;
