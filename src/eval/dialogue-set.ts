/**
 * Dialogue lines of an eval set (docs/api.md#commands): the way platform teams write
 * conversation tests,
 * `{ "dialogue": [ { "user": "...", "expect": { "agents", "inputs", "asks", "held", "not_called" } }, ... ] }`.
 *
 * Each expectation is about the turn it is written on (all are optional):
 * - `agents`: the exact set of sub-agents the turn dealt with (called, asked
 *   for a key, or held for a confirmation); `[]` = none (out of scope, a
 *   cancel, a greeting);
 * - `inputs`: `{ agent_id: { key: value } }`, values the agent received in a
 *   call of this turn (only the keys listed are compared);
 * - `asks`: `{ agent_id: [keys] }`, the exact keys the turn asks the user for
 *   on that agent's behalf (missing or invalid);
 * - `held`: the exact set of agents whose side effect waits for the user's yes
 *   after this turn;
 * - `not_called`: agents that must receive no call in this turn.
 *
 * Two optional fields beyond the contract's shape, for dialogues that need a
 * clock: `"today": "YYYY-MM-DD"` on the line (relative dates such as 明天
 * resolve against it; default the real today) and `"wait_s": N` on a turn
 * (that many seconds pass before it, e.g. past `pending_ttl_s` to test
 * expiry); `"new_session": true` on a turn starts a new session of the same
 * user (what the long-term profile carries over); `"name"` labels the
 * dialogue in the report.
 */

export interface DialogueExpect {
  agents?: string[];
  inputs?: Record<string, Record<string, string | number>>;
  asks?: Record<string, string[]>;
  held?: string[];
  not_called?: string[];
}

export interface DialogueTurn {
  user: string;
  /** Seconds that pass before this turn. */
  waitS: number;
  /** The turn opens a new session of the same user. */
  newSession: boolean;
  expect: DialogueExpect;
}

export interface DialogueCase {
  /** 1-based line number in the file. */
  line: number;
  name?: string;
  /** `YYYY-MM-DD`: the dialogue's today. */
  today?: string;
  turns: DialogueTurn[];
}

const EXPECT_FIELDS = ['agents', 'inputs', 'asks', 'held', 'not_called'];

/** True when a parsed JSON line is a dialogue line. */
export function isDialogueLine(value: unknown): boolean {
  return isRecord(value) && 'dialogue' in value;
}

/** Reads one dialogue line; problems are pushed, undefined when there are any. */
export function readDialogue(value: Record<string, unknown>, line: number, problems: string[], knownAgents?: ReadonlySet<string>): DialogueCase | undefined {
  for (const key of Object.keys(value)) {
    if (!['dialogue', 'name', 'today'].includes(key)) problems.push(`unknown field "${key}" (a dialogue line has dialogue, name, today)`);
  }
  const { dialogue, name, today } = value;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) problems.push('"name" must be a non-empty string');
  if (today !== undefined && (typeof today !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(today) || Number.isNaN(Date.parse(today)))) {
    problems.push('"today" must be a date YYYY-MM-DD');
  }
  if (!Array.isArray(dialogue) || dialogue.length === 0) {
    problems.push('"dialogue" must be a non-empty array of turns { "user", "expect" }');
    return undefined;
  }
  const checkIds = (ids: unknown, where: string): string[] | undefined => {
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      problems.push(`${where} must be an array of agent ids`);
      return undefined;
    }
    for (const id of ids) if (knownAgents && !knownAgents.has(id)) problems.push(`${where}: unknown agent "${id}"`);
    return [...new Set(ids as string[])];
  };
  const turns: DialogueTurn[] = [];
  dialogue.forEach((rawTurn: unknown, index) => {
    const at = `dialogue[${index}]`;
    if (!isRecord(rawTurn)) {
      problems.push(`${at} must be an object { "user", "expect" }`);
      return;
    }
    for (const key of Object.keys(rawTurn)) if (!['user', 'expect', 'wait_s', 'new_session'].includes(key)) problems.push(`${at}: unknown field "${key}" (expected user, expect, wait_s, new_session)`);
    const { user, expect, wait_s: waitS, new_session: newSession } = rawTurn;
    if (newSession !== undefined && typeof newSession !== 'boolean') problems.push(`${at}.new_session must be true or false`);
    if (typeof user !== 'string' || user.trim() === '') problems.push(`${at}.user must be a non-empty string`);
    if (waitS !== undefined && (typeof waitS !== 'number' || !Number.isFinite(waitS) || waitS < 0)) problems.push(`${at}.wait_s must be a number of seconds ≥ 0`);
    const expected: DialogueExpect = {};
    if (expect !== undefined) {
      if (!isRecord(expect)) problems.push(`${at}.expect must be an object`);
      else {
        for (const key of Object.keys(expect)) if (!EXPECT_FIELDS.includes(key)) problems.push(`${at}.expect: unknown field "${key}" (expected ${EXPECT_FIELDS.join(', ')})`);
        if (expect.agents !== undefined) expected.agents = checkIds(expect.agents, `${at}.expect.agents`);
        if (expect.held !== undefined) expected.held = checkIds(expect.held, `${at}.expect.held`);
        if (expect.not_called !== undefined) expected.not_called = checkIds(expect.not_called, `${at}.expect.not_called`);
        if (expect.inputs !== undefined) {
          if (!isRecord(expect.inputs)) problems.push(`${at}.expect.inputs must be an object { agent_id: { key: value } }`);
          else {
            expected.inputs = {};
            for (const [agentId, values] of Object.entries(expect.inputs)) {
              checkIds([agentId], `${at}.expect.inputs`);
              if (!isRecord(values) || !Object.values(values).every((item) => typeof item === 'string' || typeof item === 'number')) {
                problems.push(`${at}.expect.inputs.${agentId} must map keys to strings or numbers`);
              } else expected.inputs[agentId] = values as Record<string, string | number>;
            }
          }
        }
        if (expect.asks !== undefined) {
          if (!isRecord(expect.asks)) problems.push(`${at}.expect.asks must be an object { agent_id: [keys] }`);
          else {
            expected.asks = {};
            for (const [agentId, keys] of Object.entries(expect.asks)) {
              checkIds([agentId], `${at}.expect.asks`);
              if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) problems.push(`${at}.expect.asks.${agentId} must be an array of keys`);
              else expected.asks[agentId] = [...new Set(keys as string[])];
            }
          }
        }
      }
    }
    if (typeof user === 'string') turns.push({ user: user.trim(), waitS: typeof waitS === 'number' ? waitS : 0, newSession: newSession === true, expect: expected });
  });
  if (problems.length > 0) return undefined;
  return { line, ...(typeof name === 'string' ? { name: name.trim() } : {}), ...(typeof today === 'string' ? { today } : {}), turns };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
