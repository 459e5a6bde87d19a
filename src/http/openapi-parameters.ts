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
/** A user message with text (the query). */
const userText = (maxQueryChars: number) => ({
  type: 'object',
  required: ['role', 'content'],
  properties: { role: { const: 'user' }, content: { type: 'string', minLength: 1, maxLength: maxQueryChars, pattern: '\\S' } },
});

/**
 * `POST /v1/agui`'s body: the AG-UI `RunAgentInput`, with what Switchboard checks on top of the SDK's
 * schema. Without API keys `forwardedProps.user_id` is required (with keys the key's tenant stands for it).
 */
export function aguiRunInputSchema(maxQueryChars = 4000, keysOn = true): Record<string, unknown> {
  const user = keysOn ? {} : { required: ['user_id'] };
  return {
    type: 'object',
    description:
      'An AG-UI RunAgentInput (checked with the SDK\'s own schema; other AG-UI message kinds are read as the SDK defines them). The last user message is the query: it must have text, unless forwardedProps confirms, rejects or chooses.',
    required: ['threadId', 'runId', 'messages', ...(keysOn ? [] : ['forwardedProps'])],
    // The query: a user message with text, unless forwardedProps confirms or rejects tasks or chooses an option.
    anyOf: [
      { required: ['messages'], properties: { messages: { minItems: 1, contains: userText(maxQueryChars) } } },
      ...(['confirm', 'reject'] as const).map((name) => ({ required: ['forwardedProps'], properties: { forwardedProps: { required: [name], properties: { [name]: { minItems: 1 } } } } })),
      { required: ['forwardedProps'], properties: { forwardedProps: { required: ['choose'], properties: { choose: { type: 'string' } } } } },
    ],
    additionalProperties: true,
    properties: {
      threadId: { ...idSchema('session_id'), description: 'The session id.' },
      runId: { type: 'string' },
      messages: {
        type: 'array',
        description: 'The conversation; the last user message is the query (text of at most the query length).',
        items: {
          type: 'object',
          required: ['id', 'role'],
          additionalProperties: true,
          properties: { id: { type: 'string' }, role: { type: 'string', enum: ['user', 'assistant', 'system', 'developer'] }, content: { type: 'string' } },
          // Only an assistant message may leave its content out.
          anyOf: [{ properties: { role: { const: 'assistant' } } }, { required: ['content'] }],
        },
      },
      tools: {
        type: 'array',
        items: { type: 'object', required: ['name', 'description'], additionalProperties: true, properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { description: 'A JSON Schema (not null).' } } },
      },
      context: { type: 'array', items: { type: 'object', required: ['description', 'value'], additionalProperties: true, properties: { description: { type: 'string' }, value: { type: 'string' } } } },
      state: { description: 'Any JSON but null.' },
      forwardedProps: {
        type: 'object',
        additionalProperties: true,
        ...user,
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
