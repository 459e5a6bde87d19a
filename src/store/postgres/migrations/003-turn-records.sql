-- The record of each finished turn (GET /v1/turns, the console), on the turn's
-- own row so retention and forgetting a user take it with the turn. `agents`
-- is `,a,b,` (one agent is found with strpos); `record` is the JSON text.
ALTER TABLE sb_turns ADD COLUMN tenant TEXT;
ALTER TABLE sb_turns ADD COLUMN outcome TEXT;
ALTER TABLE sb_turns ADD COLUMN agents TEXT;
ALTER TABLE sb_turns ADD COLUMN record TEXT;
CREATE INDEX sb_turns_by_tenant ON sb_turns (tenant, started_at) WHERE record IS NOT NULL;

-- Finishes a running turn as sb_finish_turn does and, when it finished, keeps
-- its record (the same transaction). The tenant is read off the owner key.
CREATE FUNCTION sb_finish_turn_recorded(p_turn TEXT, p_outcome TEXT, p_content TEXT, p_at TEXT, p_metadata JSONB,
                                        p_said TEXT, p_agents TEXT, p_record TEXT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  IF NOT sb_finish_turn(p_turn, p_outcome, p_content, p_at, p_metadata) THEN RETURN FALSE; END IF;
  IF p_record IS NOT NULL THEN
    UPDATE sb_turns
      SET tenant = CASE WHEN strpos(user_id, '/') > 0 THEN split_part(user_id, '/', 1) ELSE '' END,
          outcome = p_said, agents = p_agents, record = p_record
      WHERE turn_id = p_turn;
  END IF;
  RETURN TRUE;
END $$;
