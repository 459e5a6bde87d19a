-- Tasks of the A2A server (POST /a2a), per owner, so that every replica serves them.
-- body is the task's A2A v1.0 JSON text; updated_at its status timestamp (ISO text).
CREATE TABLE sb_a2a_tasks (
  owner TEXT NOT NULL,
  task_id TEXT NOT NULL,
  context_id TEXT NOT NULL,
  state TEXT NOT NULL,
  body TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (owner, task_id)
);
CREATE INDEX sb_a2a_tasks_by_update ON sb_a2a_tasks (owner, updated_at, task_id);
