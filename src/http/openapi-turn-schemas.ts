/**
 * The shapes of `GET /v1/turns` and `GET /v1/turns/:turn_id` for the OpenAPI
 * document: the turn record of src/store/types.ts (`StoredTurnRecord`) as the
 * API shows it (user id shortened).
 */

const integer = { type: 'integer', minimum: 0 };
const strings = { type: 'array', items: { type: 'string' } };

const VALUE_SOURCE = {
  description: 'Where the value came from: the user\'s words (turn and character span), a remembered profile fact, or an upstream task\'s output.',
  oneOf: [
    {
      type: 'object',
      required: ['kind', 'turn', 'start', 'end'],
      properties: {
        kind: { const: 'user' },
        turn: { type: 'integer', minimum: 1, description: 'The turn\'s number in its session' },
        start: integer,
        end: integer,
        turn_id: { type: 'string', description: 'The turn whose words hold it (when its record is still kept)' },
        words: { type: 'string', description: 'Those words, masked as in transcripts' },
      },
    },
    { type: 'object', required: ['kind', 'key'], properties: { kind: { const: 'profile' }, key: { type: 'string' } } },
    { type: 'object', required: ['kind', 'task_id'], properties: { kind: { const: 'upstream' }, task_id: { type: 'string' } } },
  ],
};

const INPUT = {
  type: 'object',
  required: ['key', 'value'],
  properties: { key: { type: 'string' }, value: {}, source: { $ref: '#/components/schemas/ValueSource' } },
};

/** `components.schemas` entries of the turn routes. */
export const TURN_SCHEMAS: Readonly<Record<string, unknown>> = {
  ValueSource: VALUE_SOURCE,
  TurnUsage: {
    type: 'object',
    required: ['model_calls', 'prompt_tokens', 'completion_tokens', 'agent_calls', 'by_agent'],
    properties: {
      model_calls: integer,
      prompt_tokens: { ...integer, description: 'As the model endpoint reported them (0 offline)' },
      completion_tokens: integer,
      agent_calls: integer,
      by_agent: {
        type: 'object',
        additionalProperties: { type: 'object', required: ['calls', 'failures', 'ms'], properties: { calls: integer, failures: integer, ms: integer } },
      },
    },
  },
  TurnSummary: {
    type: 'object',
    required: ['turn_id', 'session_id', 'user_id', 'at', 'outcome', 'duration_ms', 'agents', 'usage'],
    properties: {
      turn_id: { type: 'string' },
      session_id: { type: 'string' },
      user_id: { type: 'string', description: 'Shortened (middle hidden) and masked' },
      at: { type: 'string', format: 'date-time' },
      outcome: { type: 'string' },
      duration_ms: integer,
      agents: strings,
      usage: { $ref: '#/components/schemas/TurnUsage' },
    },
  },
  TurnList: {
    type: 'object',
    required: ['turns', 'next_cursor'],
    properties: {
      turns: { type: 'array', items: { $ref: '#/components/schemas/TurnSummary' } },
      next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    },
  },
  TurnDetail: {
    type: 'object',
    required: ['turn_id', 'session_id', 'user_id', 'trace_id', 'at', 'outcome', 'duration_ms', 'agents', 'usage', 'registry_version', 'query', 'answer', 'stages', 'timings_ms', 'calls'],
    properties: {
      turn_id: { type: 'string' },
      session_id: { type: 'string' },
      user_id: { type: 'string' },
      trace_id: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      outcome: { type: 'string' },
      duration_ms: integer,
      agents: strings,
      usage: { $ref: '#/components/schemas/TurnUsage' },
      registry_version: { type: 'string' },
      session_turn: { type: 'integer', minimum: 1 },
      query: { type: 'string', description: 'The user\'s message, masked' },
      answer: { type: 'string', description: 'The answer, masked' },
      stages: {
        type: 'array',
        description: 'Offsets in ms from `at`',
        items: { type: 'object', required: ['stage', 'start_ms', 'end_ms'], properties: { stage: { type: 'string' }, start_ms: integer, end_ms: integer } },
      },
      timings_ms: { type: 'object', additionalProperties: { type: 'number' } },
      plan: {
        type: 'object',
        required: ['plan_id', 'task_type', 'tasks'],
        properties: {
          plan_id: { type: 'string' },
          task_type: { type: 'string' },
          tasks: {
            type: 'array',
            items: {
              type: 'object',
              required: ['task_id', 'agent_id', 'description', 'dependencies', 'status', 'inputs'],
              properties: {
                task_id: { type: 'string' },
                agent_id: { type: 'string' },
                description: { type: 'string' },
                dependencies: strings,
                status: { type: 'string' },
                inputs: { type: 'array', items: INPUT },
              },
            },
          },
        },
      },
      calls: {
        type: 'array',
        items: {
          type: 'object',
          required: ['task_id', 'agent_id', 'start_ms', 'end_ms', 'status', 'inputs'],
          properties: {
            task_id: { type: 'string' },
            agent_id: { type: 'string' },
            start_ms: integer,
            end_ms: integer,
            ms: integer,
            status: { type: 'string' },
            code: { type: 'string' },
            cached: { type: 'boolean' },
            inputs: { type: 'array', items: INPUT },
          },
        },
      },
      verify: {
        type: 'object',
        required: ['sufficient', 'judged', 'retried', 'rounds'],
        properties: {
          sufficient: { type: 'boolean' },
          judged: { type: 'boolean' },
          retried: strings,
          rounds: integer,
          missing: { type: 'array', items: { type: 'object', required: ['task_id', 'reason'], properties: { task_id: { type: 'string' }, reason: { type: 'string' } } } },
        },
      },
    },
  },
};
