/**
 * The single place where errors become HTTP responses. Everything a handler
 * throws (a `UserError`, a `SystemError`, a body-parser failure, a plain bug)
 * ends here and leaves as `{ error: { code, message } }` with a fitting status.
 * 5xx answers carry only the catalogue message: the real cause is logged with
 * the trace id, never sent.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ERROR_CATALOGUE, SystemError, UserError, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';

/** The body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

interface MappedError {
  status: number;
  body: ErrorBody;
  /** Seconds for `retry-after` (429 and 503 only). */
  retryAfterSeconds?: number;
}

/** Shape of the errors thrown by express's body parsers (`http-errors`). */
interface BodyParserError {
  type: string;
  status?: number;
  statusCode?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string'
    && typeof ((error as { status?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode) === 'number';
}

function errorBody(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return details && Object.keys(details).length > 0 ? { error: { code, message, details } } : { error: { code, message } };
}

function retryAfterFrom(details: Record<string, unknown> | undefined): number {
  const value = details?.retryAfterSeconds;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 1;
}

function mapBodyParserError(error: BodyParserError): MappedError {
  switch (error.type) {
    case 'entity.too.large': {
      const limit = typeof error.limit === 'number' ? ` (limit ${error.limit} bytes)` : '';
      return { status: 413, body: errorBody('PAYLOAD_TOO_LARGE', `body is too large${limit}`) };
    }
    case 'entity.parse.failed': {
      // The parser's own words say where it stopped ("Unexpected end of JSON input", "... at position 12").
      const where = error instanceof Error && error.message ? `: ${error.message}` : '';
      return { status: 400, body: errorBody('BAD_REQUEST', `body is not valid JSON${where}`, { field: 'body' }) };
    }
    case 'encoding.unsupported':
      return { status: 415, body: errorBody('UNSUPPORTED_MEDIA_TYPE', 'content-encoding is not supported') };
    case 'charset.unsupported':
      return { status: 415, body: errorBody('UNSUPPORTED_MEDIA_TYPE', 'charset is not supported; send UTF-8 JSON') };
    case 'request.aborted':
      return { status: 400, body: errorBody('BAD_REQUEST', 'the request body was not received completely') };
    case 'request.size.invalid':
      return { status: 400, body: errorBody('BAD_REQUEST', 'the request body length does not match content-length') };
    default: {
      const status = error.status ?? error.statusCode ?? 500;
      if (status >= 400 && status < 500) return { status, body: errorBody('BAD_REQUEST', 'the request body could not be read') };
      return { status: 500, body: errorBody('INTERNAL', ERROR_CATALOGUE.INTERNAL.message) };
    }
  }
}

/** Errors raised while reading the request itself: a bad escape in the URL, a body that does not inflate. */
function mapRequestReadError(error: unknown): MappedError | null {
  // express decodes route parameters and throws a URIError (status 400) on a bad `%` escape.
  if (error instanceof URIError) {
    return { status: 400, body: errorBody('BAD_REQUEST', 'the URL contains a malformed percent escape') };
  }
  // A body whose content-encoding is false fails to inflate with a zlib error (`Z_…`; brotli's are `ERR__ERROR_…` / `ERR_BROTLI_…`).
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ERR_BROTLI'))) {
    return { status: 400, body: errorBody('BAD_REQUEST', 'the body does not match its content-encoding') };
  }
  return null;
}

/** Turns any thrown value into a status and body. Exported for tests and the chat route. */
export function mapError(error: unknown): MappedError {
  if (error instanceof UserError) {
    const { retryAfterSeconds, allow: _allow, ...details } = error.details ?? {};
    const status = ERROR_CATALOGUE[error.code].httpStatus;
    const mapped: MappedError = { status, body: errorBody(error.code, error.message, details) };
    if (status === 429 || status === 503) mapped.retryAfterSeconds = retryAfterFrom({ retryAfterSeconds });
    return mapped;
  }
  if (error instanceof SystemError) {
    const status = ERROR_CATALOGUE[error.code].httpStatus;
    const code: ErrorCode = status >= 500 ? error.code : 'INTERNAL';
    return { status: ERROR_CATALOGUE[code].httpStatus, body: errorBody(code, ERROR_CATALOGUE[code].message) };
  }
  const readError = mapRequestReadError(error);
  if (readError) return readError;
  if (isBodyParserError(error)) return mapBodyParserError(error);
  return { status: 500, body: errorBody('INTERNAL', ERROR_CATALOGUE.INTERNAL.message) };
}

/** The body and status of a not-ready probe answer (`/readyz`). */
export function notReadyAnswer(): { status: number; body: ErrorBody } {
  const { status, body } = mapError(new SystemError('NOT_READY'));
  return { status, body };
}

/** Writes a mapped error to a response that has not started yet. */
export function sendError(response: Response, error: unknown): void {
  const mapped = mapError(error);
  if (mapped.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(mapped.retryAfterSeconds));
  if (mapped.status === 401) response.setHeader('www-authenticate', 'Bearer');
  const allow = error instanceof UserError ? error.details?.allow : undefined;
  if (mapped.status === 405 && typeof allow === 'string') response.setHeader('allow', allow);
  response.status(mapped.status).json(mapped.body);
}

/** The trace id the trace middleware stored on the response (or "-"). */
export function traceIdOf(response: Response): string {
  const value: unknown = response.locals.traceId;
  return typeof value === 'string' ? value : '-';
}

/**
 * The last middleware of the app. Logs 5xx with the trace id and the real
 * cause; a response whose headers are already out (an open stream) is ended.
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, request, response, _next) => {
    const mapped = mapError(error);
    const traceId = traceIdOf(response);
    if (mapped.status >= 500) {
      logger.error({ err: error, traceId, method: request.method, path: request.path }, 'request failed');
    } else {
      logger.debug({ traceId, code: mapped.body.error.code, message: mapped.body.error.message }, 'request rejected');
    }
    if (response.headersSent) {
      if (!response.writableEnded) response.end();
      return;
    }
    sendError(response, error);
  };
}

/** Answers every request no route matched with a 404 JSON error. */
export function createNotFoundHandler(): RequestHandler {
  return (request, response) => {
    sendError(response, new UserError('NOT_FOUND', `no route for ${request.method} ${request.path}`));
  };
}

/** Answers a known path called with a method it does not support: 405 with `allow`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = allowed.join(', ');
  return (request, response) => {
    sendError(response, new UserError('METHOD_NOT_ALLOWED', `method ${request.method} is not allowed here; use ${allow}`, { allow }));
  };
}

/**
 * A complete HTTP/1.1 error response as raw text, for failures Node detects
 * before express sees the request (oversized headers, a malformed request, a
 * request that never finished arriving): still a JSON body from the catalogue.
 */
export function rawErrorResponse(code: ErrorCode, message: string = ERROR_CATALOGUE[code].message): string {
  const status = ERROR_CATALOGUE[code].httpStatus;
  const body = JSON.stringify(errorBody(code, message));
  return [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/** Rejects a request whose URL is longer than `maxBytes` with 414. */
export function createUrlLengthLimit(maxBytes: number): RequestHandler {
  return (request, response, next) => {
    if (request.originalUrl.length > maxBytes) {
      sendError(response, new UserError('URI_TOO_LONG', `the URL is longer than ${maxBytes} characters`));
      return;
    }
    next();
  };
}

/**
 * Answers 408 when a request body has not fully arrived within `timeoutMs`
 * (a client that declared more bytes than it sends), then drops the connection.
 */
export function createBodyTimeout(timeoutMs: number): RequestHandler {
  return (request, response, next) => {
    if (request.readableEnded || request.complete) {
      next();
      return;
    }
    const timer = setTimeout(() => {
      if (!response.headersSent) {
        response.setHeader('connection', 'close');
        sendError(response, new UserError('REQUEST_TIMEOUT', `the request body did not arrive completely within ${timeoutMs} ms`));
      }
      response.once('finish', () => request.destroy());
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    request.once('end', clear);
    request.once('close', clear);
    response.once('close', clear);
    next();
  };
}
