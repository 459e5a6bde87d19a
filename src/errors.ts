/**
 * One catalogue of errors as data: each code's HTTP status and default
 * message. `src/http/error-handler.ts` is the only place that reads the status
 * and turns an error into a response; a thrown error carries only its code.
 * User errors (4xx) are the caller's or the operator's to fix (a bad request,
 * a bad registry file, a bad model setting); system errors (5xx) are bugs or
 * unavailable dependencies.
 */

export const ERROR_CATALOGUE = {
  BAD_REQUEST: { httpStatus: 400, message: 'The request is invalid.' },
  DELEGATION_DEPTH_EXCEEDED: { httpStatus: 400, message: 'The call is nested too deeply: agents calling back into the supervisor went over the delegation depth limit.' },
  UNAUTHORIZED: { httpStatus: 401, message: 'A valid API key is required.' },
  FORBIDDEN: { httpStatus: 403, message: 'Not allowed.' },
  NOT_FOUND: { httpStatus: 404, message: 'Not found.' },
  SESSION_NOT_FOUND: { httpStatus: 404, message: 'Session not found.' },
  AGENT_NOT_FOUND: { httpStatus: 404, message: 'No such agent.' },
  METHOD_NOT_ALLOWED: { httpStatus: 405, message: 'This method is not allowed here.' },
  TURN_IN_PROGRESS: { httpStatus: 409, message: 'A turn is already running on this session.' },
  REQUEST_TIMEOUT: { httpStatus: 408, message: 'The request was not received completely in time.' },
  PAYLOAD_TOO_LARGE: { httpStatus: 413, message: 'The request body is too large.' },
  URI_TOO_LONG: { httpStatus: 414, message: 'The URL is too long.' },
  HEADERS_TOO_LARGE: { httpStatus: 431, message: 'The request headers are too large.' },
  UNSUPPORTED_MEDIA_TYPE: { httpStatus: 415, message: 'Send application/json.' },
  CONFIG_INVALID: { httpStatus: 422, message: 'The registry file is invalid.' },
  LLM_CONFIG_INVALID: { httpStatus: 422, message: 'The model gateway settings are invalid.' },
  RATE_LIMITED: { httpStatus: 429, message: 'Too many requests.' },
  INTERNAL: { httpStatus: 500, message: 'Internal error.' },
  NOT_READY: { httpStatus: 503, message: 'Not ready.' },
  OVERLOADED: { httpStatus: 503, message: 'The server is carrying as many turns as it can; retry shortly.' },
} as const satisfies Record<string, { httpStatus: number; message: string }>;

/** Every error code the server can answer with. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** An error a caller caused (bad input, bad config): 4xx, clear message, nothing changes. */
export class UserError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'UserError';
    this.code = code;
    this.details = details;
  }
}

/** A bug or an unavailable dependency: 5xx, logged with its trace id, no stack to the client. */
export class SystemError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode = 'INTERNAL', message?: string, options?: { cause?: unknown }) {
    super(message ?? ERROR_CATALOGUE[code].message, options);
    this.name = 'SystemError';
    this.code = code;
  }
}

/**
 * A lookup of an agent id that the live registry does not have (a planned
 * task whose agent was removed by a reload). Carries what was available, for
 * logs only: agent ids are never shown to users.
 */
export class NoSuchAgentError extends UserError {
  readonly agentId: string;
  readonly availableAgents: readonly string[];
  constructor(agentId: string, availableAgents: readonly string[]) {
    super('AGENT_NOT_FOUND', `no agent "${agentId}" in the registry (available: ${availableAgents.join(', ') || 'none'})`);
    this.name = 'NoSuchAgentError';
    this.agentId = agentId;
    this.availableAgents = [...availableAgents];
  }
}
