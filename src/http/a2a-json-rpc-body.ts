/**
 * The body of `POST /a2a`, read by the A2A route itself (CONTRACT §3 "A2A, v4
 * readings"): a body that is not JSON is answered with the JSON-RPC error
 * `-32700` and `id: null`, and JSON that is not a JSON-RPC 2.0 request object
 * (a string, an array, an object without `jsonrpc: "2.0"` and a `method`)
 * with `-32600`, as JSON-RPC 2.0 says, never with the REST error body of
 * `/v1`. Both are HTTP 200, as the SDK answers its own JSON-RPC errors. A
 * body too large or sent too slowly keeps the app's REST answer (413 / 408):
 * the JSON-RPC layer is never reached. An empty body is a parse error; a
 * body sent without a content type is read as JSON; one declared as another
 * media type gets `-32005` (ContentTypeNotSupported, as the SDK's own guard
 * answers) naming the type it got.
 */
import express, { type RequestHandler } from 'express';

/** JSON-RPC 2.0 error codes answered before the SDK sees the request. */
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;
export const JSON_RPC_INVALID_PARAMS = -32602;
/** A2A ContentTypeNotSupportedError: the request's media type is not JSON. */
export const A2A_CONTENT_TYPE_NOT_SUPPORTED = -32005;

const JSON_TYPES = ['application/json', 'application/*+json'];

/** What is wrong with a parsed body as a JSON-RPC 2.0 request object, or undefined when nothing is. */
export function jsonRpcRequestProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return 'the body must be a JSON-RPC 2.0 request object, not a JSON ' + (body === null ? 'null' : typeof body);
  if (Array.isArray(body)) return 'batch requests are not supported: send one JSON-RPC 2.0 request object';
  const request = body as Record<string, unknown>;
  if (request.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof request.method !== 'string' || request.method === '') return 'method must be a non-empty string';
  if ('id' in request && request.id !== null && typeof request.id !== 'string' && !(typeof request.id === 'number' && Number.isFinite(request.id))) {
    return 'id must be a string, a number or null';
  }
  if ('params' in request && (typeof request.params !== 'object' || request.params === null)) return 'params must be an object or an array';
  return undefined;
}

/** The send methods, v1.0 and v0.3 names: their params carry one message. */
const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/**
 * What is wrong with a send request's message that the SDK lets through, or
 * undefined: a message with no parts at all has nothing to run, so it is
 * invalid params (named), not a task that fails.
 */
export function sendParamsProblem(request: { method: string; params?: unknown }): string | undefined {
  if (!SEND_METHODS.has(request.method)) return undefined;
  const parts = (request.params as { message?: { parts?: unknown } } | undefined)?.message?.parts;
  return Array.isArray(parts) && parts.length === 0 ? 'params.message.parts must hold at least one part (a text part with the request)' : undefined;
}

function idOf(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Reads the body as text whatever its content type and parses it here, so an
 * empty body, a body of another media type, parse errors and non-request JSON
 * all get their JSON-RPC answers instead of reaching the SDK without a body.
 */
export function createJsonRpcBody(limitBytes: number): RequestHandler[] {
  const text = express.text({ limit: limitBytes, type: () => true });
  const parse: RequestHandler = (request, response, next) => {
    const answer = (id: string | number | null, code: number, message: string) => {
      response.status(200).json({ jsonrpc: '2.0', id, error: { code, message } });
    };
    if (typeof request.body !== 'string' || request.body.trim() === '') {
      answer(null, JSON_RPC_PARSE_ERROR, 'Invalid JSON payload: the body is empty; send one JSON-RPC 2.0 request object');
      return;
    }
    const declared = request.headers['content-type'];
    if (declared !== undefined && declared.trim() !== '' && request.is(JSON_TYPES) === false) {
      answer(null, A2A_CONTENT_TYPE_NOT_SUPPORTED, `Unsupported Content-Type: content-type must be application/json (got ${declared})`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body) as unknown;
    } catch (error) {
      answer(null, JSON_RPC_PARSE_ERROR, `Invalid JSON payload: ${(error as Error).message}`);
      return;
    }
    const problem = jsonRpcRequestProblem(body);
    if (problem !== undefined) {
      answer(idOf(body), JSON_RPC_INVALID_REQUEST, `Invalid Request: ${problem}`);
      return;
    }
    const invalidParams = sendParamsProblem(body as { method: string; params?: unknown });
    if (invalidParams !== undefined) {
      answer(idOf(body), JSON_RPC_INVALID_PARAMS, `Invalid params: ${invalidParams}`);
      return;
    }
    request.body = body;
    next();
  };
  return [text, parse];
}
