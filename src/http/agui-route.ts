/**
 * `POST /v1/agui`: one turn as an AG-UI event stream (docs/api.md#routes),
 * so off-the-shelf AG-UI front ends (`@ag-ui/client` `HttpAgent`, CopilotKit)
 * render it without a parser of ours. The input is the SDK's `RunAgentInput`
 * (checked with its own schema): `threadId` is the session, the last user
 * message the query, `forwardedProps.user_id` the user (required unless API
 * keys are on: the key's tenant then stands for its one user), and
 * `forwardedProps.confirm` / `reject` confirm or reject held tasks.
 *
 * Events are written by `@ag-ui/encoder` in the order `agui-translator.ts`
 * gives them: RUN_STARTED; STEP_STARTED / STEP_FINISHED per stage (intent,
 * plan, each agent task, verify, summarize); the answer as TEXT_MESSAGE_START,
 * one TEXT_MESSAGE_CONTENT per piece the model streams, TEXT_MESSAGE_END; CUSTOM
 * `semantic_info` and `confirmation` when keys are missing or a side effect is
 * held; then RUN_FINISHED (its result names the outcome) or RUN_ERROR.
 *
 * Framing follows the `Accept` header: `text/event-stream` frames unless the
 * client prefers AG-UI's protobuf media type over them (`*\/*` or no header
 * is SSE), so the content type always says what the bytes are.
 */
import type { BaseEvent, Message } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { AGUI_MEDIA_TYPE, EventEncoder } from '@ag-ui/encoder';
import type { RequestHandler, Response } from 'express';
import { UserError } from '../errors.js';
import type { ResponseState } from '../events/index.js';
import type { StartedTurn, TurnRunner } from '../turn/index.js';
import { isValidId } from '../id-patterns.js';
import type { Logger } from '../logger.js';
import { callerTenant } from './auth.js';
import { delegationDepthOf } from './delegation-depth.js';
import type { StreamTracker } from './stream-tracker.js';
import { requireTraceId } from './trace-id.js';
import { createAguiTranslator } from './agui-translator.js';
import { holdAdmission } from './turn-admission.js';

export interface AguiHandlerOptions {
  turns: TurnRunner;
  logger: Logger;
  tracker: StreamTracker;
  maxQueryChars: number;
  /** API keys are on: a missing `forwardedProps.user_id` is the key's tenant. */
  keysOn: boolean;
}

interface AguiTurn {
  threadId: string;
  runId: string;
  query: string;
  userId: string;
  confirm?: string[];
  reject?: string[];
  /** `forwardedProps.choose`: the option id of the last clarification. */
  choose?: string;
  /** The run's input messages (a messages snapshot keeps them). */
  messages: Message[];
}

/** Reads the run input into a turn, or throws a 400 naming the field. */
function readRunInput(body: unknown, response: Response, options: AguiHandlerOptions): AguiTurn {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new UserError('BAD_REQUEST', `not a valid AG-UI RunAgentInput: ${field}: ${issue?.message ?? 'invalid'}`, { field });
  }
  const input = parsed.data;
  if (!isValidId('session_id', input.threadId)) {
    throw new UserError('BAD_REQUEST', 'threadId may only hold letters, digits and _ . : - (1 to 128 characters)', { field: 'threadId' });
  }
  const props = (typeof input.forwardedProps === 'object' && input.forwardedProps !== null ? input.forwardedProps : {}) as Record<string, unknown>;
  let userId: string;
  if (props.user_id !== undefined) {
    if (typeof props.user_id !== 'string' || !isValidId('user_id', props.user_id)) {
      throw new UserError('BAD_REQUEST', 'forwardedProps.user_id may only hold letters, digits and _ . : @ - (1 to 128 characters)', { field: 'forwardedProps.user_id' });
    }
    userId = props.user_id;
  } else if (options.keysOn) {
    userId = callerTenant(response);
  } else {
    throw new UserError('BAD_REQUEST', 'forwardedProps.user_id is required', { field: 'forwardedProps.user_id' });
  }
  const confirm = taskIdList(props.confirm, 'forwardedProps.confirm');
  const reject = taskIdList(props.reject, 'forwardedProps.reject');
  const choose = props.choose;
  if (choose !== undefined && (typeof choose !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/u.test(choose))) {
    throw new UserError('BAD_REQUEST', 'forwardedProps.choose must be an option_id of the last clarification (1 to 64 letters, digits and _ . : -)', { field: 'forwardedProps.choose' });
  }
  const lastUser = [...input.messages].reverse().find((message) => message.role === 'user');
  const content: unknown = lastUser?.content;
  const query = (
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { type?: string; text?: string }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
        : ''
  ).trim();
  // As on POST /v1/chat: only a non-empty confirm or reject (or a choice) stands in for the user's text.
  if (query === '' && !confirm?.length && !reject?.length && choose === undefined) throw new UserError('BAD_REQUEST', 'messages must end with a user message that has text', { field: 'messages' });
  if (query.length > options.maxQueryChars) {
    throw new UserError('BAD_REQUEST', `the user message is longer than ${options.maxQueryChars} characters`, { field: 'messages' });
  }
  return { threadId: input.threadId, runId: input.runId, query, userId, messages: input.messages as Message[], ...(confirm ? { confirm } : {}), ...(reject ? { reject } : {}), ...(typeof choose === 'string' ? { choose } : {}) };
}

function taskIdList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 50 || !value.every((id) => typeof id === 'string' && isValidId('task_id', id))) {
    throw new UserError('BAD_REQUEST', `${field} must be a list of task ids`, { field });
  }
  return value as string[];
}

/** Builds the handler (body already parsed as JSON). */
export function createAguiHandler(options: AguiHandlerOptions): RequestHandler {
  const { logger } = options;
  return async (request, response) => {
    const turn = readRunInput(request.body, response, options);
    const traceId = requireTraceId(response);
    const protobuf = request.accepts(['text/event-stream', AGUI_MEDIA_TYPE]) === AGUI_MEDIA_TYPE;
    const encoder = new EventEncoder({ accept: protobuf ? AGUI_MEDIA_TYPE : 'text/event-stream' });
    const translator = createAguiTranslator(turn.threadId, turn.runId, turn.messages);

    const controller = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished && !controller.signal.aborted) controller.abort('client_disconnected');
    });
    const pending: ResponseState[] = [];
    let write: ((event: ResponseState) => void) | undefined;
    const onEvent = (event: ResponseState) => {
      if (write) write(event);
      else pending.push(event);
    };

    // Started before any byte is written: a refusal (409, 400) is still a plain JSON error.
    const started: StartedTurn = await options.turns.start(
      {
        query: turn.query,
        userId: turn.userId,
        tenant: callerTenant(response),
        sessionId: turn.threadId,
        traceId,
        delegationDepth: delegationDepthOf(response),
        ...(turn.confirm ? { confirm: turn.confirm } : {}),
        ...(turn.reject ? { reject: turn.reject } : {}),
        ...(turn.choose ? { choose: turn.choose } : {}),
      },
      { signal: controller.signal, onEvent },
    );
    holdAdmission(response, started.done);

    response.status(200);
    response.setHeader('content-type', encoder.getContentType());
    response.setHeader('cache-control', 'no-cache, no-transform');
    response.setHeader('x-accel-buffering', 'no');
    response.setHeader('x-session-id', started.sessionId);
    response.flushHeaders();
    const send = (event: BaseEvent) => {
      if (!response.writableEnded && !response.destroyed) response.write(protobuf ? encoder.encodeBinary(event) : encoder.encodeSSE(event));
    };
    const untrack = options.tracker.add({
      shutdown: async () => {
        controller.abort('server_shutdown');
        await started.done.catch(() => undefined);
      },
    });
    send(translator.started());
    write = (event) => translator.translate(event).forEach(send);
    for (const event of pending.splice(0)) write(event);
    try {
      await started.done;
    } catch (error) {
      logger.error({ err: error, traceId }, 'AG-UI turn failed while streaming');
      translator.failed('the turn failed').forEach(send);
    } finally {
      untrack();
      if (!response.writableEnded) response.end();
    }
  };
}
