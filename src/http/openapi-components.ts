/**
 * Response bodies of the API as named schemas (`components/schemas`), written
 * so a generated client compiles against real answers: every object lists its
 * fields, and an object that is open by design says so with
 * `additionalProperties` (the value schema when it is known, `{}` when any
 * JSON may appear), never a bare `{ type: object }` (which generators read as
 * "no fields at all").
 */

import { TURN_SCHEMAS } from './openapi-turn-schemas.js';

/** Any JSON object (a schema the registry author wrote, stage-specific state). */
export const OPEN_OBJECT = { type: 'object', additionalProperties: {} } as const;

/** Per-language texts: `{ zh: "...", en: "..." }`. */
const TEXT_BY_LANGUAGE = { type: 'object', additionalProperties: { type: 'string' } } as const;

/** What an error's `details` may hold. */
export const ERROR_DETAILS = { ...OPEN_OBJECT, description: 'What went wrong, when known: e.g. `field` (the bad field or header).' } as const;

/** The named response schemas; merged into `components/schemas` by `openapi-document.ts`. */
export const RESPONSE_SCHEMAS: Readonly<Record<string, unknown>> = {
  ...TURN_SCHEMAS,
  ChatAnswer: {
    type: 'object',
    required: ['session_id', 'final_answer', 'events'],
    properties: {
      session_id: { type: 'string' },
      final_answer: { type: 'string' },
      events: { type: 'array', items: { $ref: '#/components/schemas/ResponseState' } },
    },
  },
  AgentHealth: {
    type: 'object',
    required: ['status', 'consecutive_failures', 'last_call_at', 'last_outcome'],
    properties: {
      status: { enum: ['unknown', 'ok', 'failing'] },
      consecutive_failures: { type: 'integer', minimum: 0 },
      last_call_at: { type: ['string', 'null'] },
      last_outcome: { type: ['string', 'null'] },
      breaker: { enum: ['closed', 'open', 'half_open'], description: 'The circuit breaker of the agent on this replica (docs/decisions/0035).' },
    },
  },
  PublicAgentCard: {
    type: 'object',
    required: ['id', 'name', 'description', 'enabled', 'examples', 'keywords', 'depends_on', 'protocol', 'required_semantic_keys'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      names: TEXT_BY_LANGUAGE,
      descriptions: TEXT_BY_LANGUAGE,
      enabled: { type: 'boolean' },
      examples: { type: 'array', items: { type: 'string' } },
      keywords: { type: 'array', items: { type: 'string' } },
      depends_on: { type: 'array', items: { type: 'string' } },
      protocol: { type: 'string' },
      required_semantic_keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['key', 'description', 'widget', 'extract'],
          properties: {
            key: { type: 'string' },
            description: { type: 'string' },
            descriptions: TEXT_BY_LANGUAGE,
            widget: { type: 'string' },
            remember: { type: 'boolean', description: 'The value becomes a long-term profile fact, offered in later sessions.' },
            extract: { ...OPEN_OBJECT, description: 'How the value is extracted: `{ type, values?, pattern? }`.' },
          },
        },
      },
      input_schema: { ...OPEN_OBJECT, description: 'The JSON Schema of the agent\'s inputs, as written in the registry.' },
      output_schema: { ...OPEN_OBJECT, description: 'The JSON Schema of the agent\'s output, as written in the registry.' },
      a2a_card: {
        type: 'object',
        required: ['url'],
        description: 'Registered by `a2a_card`: the card\'s url, when it was fetched, and why it could not be (the agent is then not routable).',
        properties: { url: { type: 'string' }, fetched_at: { type: 'string' }, error: { type: 'string' } },
      },
      input_modes: { type: 'array', items: { type: 'string' } },
      output_modes: { type: 'array', items: { type: 'string' } },
      health: { $ref: '#/components/schemas/AgentHealth' },
    },
  },
  RegistryLoadError: {
    type: 'object',
    required: ['file', 'line', 'col', 'message', 'issues', 'at'],
    properties: {
      file: { type: 'string' },
      line: { type: 'integer' },
      col: { type: 'integer' },
      message: { type: 'string' },
      issues: { type: 'array', items: OPEN_OBJECT },
      at: { type: 'string' },
    },
  },
  RegistrySnapshot: {
    type: 'object',
    required: ['version', 'loaded_at', 'last_error', 'warnings', 'agents'],
    properties: {
      version: { type: 'string', description: 'Content hash of the registry file.' },
      loaded_at: { type: 'string' },
      last_error: { oneOf: [{ $ref: '#/components/schemas/RegistryLoadError' }, { type: 'null' }], description: 'The last failed reload (the previous registry stays live), or null.' },
      warnings: {
        type: 'array',
        description: 'What the live version was warned about (registry lint: cards whose examples or keywords overlap, actions without side_effects, unused widgets keys; deprecations). It routes all the same.',
        items: {
          type: 'object',
          required: ['line', 'col', 'pointer', 'message'],
          properties: { line: { type: 'integer' }, col: { type: 'integer' }, pointer: { type: 'string' }, message: { type: 'string' } },
        },
      },
      agents: { type: 'array', items: { $ref: '#/components/schemas/PublicAgentCard' } },
    },
  },
  TranscriptMessage: {
    type: 'object',
    required: ['seq', 'role', 'content', 'created_at'],
    properties: {
      seq: { type: 'integer' },
      role: { enum: ['user', 'assistant'] },
      content: { type: 'string' },
      created_at: { type: 'string' },
      turn_id: { type: 'string' },
      metadata: { ...OPEN_OBJECT, description: 'e.g. `trace_id`, `outcome`, `registry_version`.' },
    },
  },
  SessionMessages: {
    type: 'object',
    required: ['session_id', 'messages'],
    properties: { session_id: { type: 'string' }, messages: { type: 'array', items: { $ref: '#/components/schemas/TranscriptMessage' } } },
  },
  ProfileFact: {
    type: 'object',
    required: ['key', 'value', 'hits', 'source', 'first_seen', 'updated_at'],
    properties: {
      key: { type: 'string' },
      value: { type: 'string' },
      hits: { type: 'integer' },
      source: { type: 'object', properties: { session_id: { type: 'string' }, turn_id: { type: 'string' } }, additionalProperties: {} },
      first_seen: { type: 'string' },
      updated_at: { type: 'string' },
    },
  },
  Profile: {
    type: 'object',
    required: ['user_id', 'facts'],
    properties: { user_id: { type: 'string' }, facts: { type: 'array', items: { $ref: '#/components/schemas/ProfileFact' } } },
  },
  ProfileDeleted: {
    type: 'object',
    required: ['user_id', 'deleted'],
    properties: {
      user_id: { type: 'string' },
      deleted: {
        type: 'object',
        required: ['profile'],
        properties: { profile: { type: 'boolean' }, sessions: { type: 'integer', description: 'With all=true: how many sessions were deleted.' } },
      },
    },
  },
};
