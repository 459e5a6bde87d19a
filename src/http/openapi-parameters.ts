/**
 * Parameter and body schemas of the OpenAPI document written from the checks
 * the server makes, so a generated client or a fuzzer knows what is refused:
 * ids by their rule (`id-patterns.ts`), the event id of `Last-Event-ID`, and
 * the AG-UI `RunAgentInput` as `agui-route.ts` reads it.
 */
import { ID_RULES, type IdKind } from '../id-patterns.js';

/** A string id of the given kind as the server checks it (1 to maxLength characters of its pattern). */
export function idSchema(kind: IdKind): Record<string, unknown> {
  const rule = ID_RULES[kind];
  return { type: 'string', minLength: 1, maxLength: rule.maxLength, pattern: rule.pattern };
}

/** `<turn_id>:<seq>`, as every event id is sent (`turn/turn-feed.ts`). */
export const EVENT_ID_PATTERN = '^turn_[0-9a-f]{32}:[0-9]{1,9}$';

/** How many task ids `confirm` / `reject` may name (as on `POST /v1/chat`). */
const MAX_TASK_IDS = 50;
const taskIds = { type: 'array', maxItems: MAX_TASK_IDS, items: idSchema('task_id') };

/** `POST /v1/agui`'s body: the AG-UI `RunAgentInput`, with what Switchboard checks on top of the SDK's schema. */
export function aguiRunInputSchema(maxQueryChars = 4000): Record<string, unknown> {
  return {
    type: 'object',
    description:
      'An AG-UI RunAgentInput (checked with the SDK\'s own schema; other AG-UI message kinds are read as the SDK defines them). The last user message is the query: it must have text, unless forwardedProps confirms, rejects or chooses.',
    required: ['threadId', 'runId', 'messages'],
    additionalProperties: true,
    properties: {
      threadId: { ...idSchema('session_id'), description: 'The session id.' },
      runId: { type: 'string' },
      messages: {
        type: 'array',
        minItems: 1,
        description: 'The conversation; the last user message is the query.',
        contains: { type: 'object', required: ['role'], properties: { role: { const: 'user' } } },
        items: {
          type: 'object',
          required: ['id', 'role', 'content'],
          additionalProperties: true,
          properties: {
            id: { type: 'string' },
            role: { type: 'string', enum: ['user', 'assistant', 'system', 'developer'] },
            content: { type: 'string', minLength: 1, maxLength: maxQueryChars, pattern: '\\S' },
          },
        },
      },
      tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
      context: { type: 'array', items: { type: 'object', additionalProperties: true } },
      state: { description: 'Any JSON but null.' },
      forwardedProps: {
        type: 'object',
        additionalProperties: true,
        properties: {
          user_id: { ...idSchema('user_id'), description: 'The user: required unless API keys are on (the key\'s tenant then stands for its one user).' },
          confirm: { ...taskIds, description: 'Task ids of held side-effect tasks the user confirms.' },
          reject: { ...taskIds, description: 'Task ids of held side-effect tasks the user rejects.' },
          choose: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$', description: 'The option_id of the last clarification the user chooses.' },
        },
      },
    },
  };
}

/** The schema with the default query limit (the route table is built once). */
export const AGUI_RUN_INPUT_SCHEMA = aguiRunInputSchema();
