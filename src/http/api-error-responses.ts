/**
 * The error answers of the API description, made from the one error
 * catalogue (`src/errors.ts`) so a code is always described under the status
 * it is really sent with.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { ERROR_DETAILS } from './openapi-components.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });

/**
 * Error responses from the catalogue: one response per HTTP status, whose
 * description names each code with what it means on this route and whose
 * schema lists the codes (`error.code` enum). A status the catalogue gives a
 * code is never typed by hand here, so a code cannot land under the wrong one.
 */
export function errorResponses(described: Partial<Record<ErrorCode, string>>): Record<string, unknown> {
  const byStatus = new Map<number, [ErrorCode, string][]>();
  for (const [code, text] of Object.entries(described) as [ErrorCode, string][]) {
    const status = ERROR_CATALOGUE[code].httpStatus;
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, text]]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string', enum: codes.map(([code]) => code) }, message: { type: 'string' }, details: ERROR_DETAILS },
        },
      },
    };
    const retry = status === 429 || status === 503;
    responses[String(status)] = {
      description: codes.map(([code, text]) => `${code}: ${text}`).join('; '),
      ...(retry ? { headers: { 'retry-after': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: json(schema),
    };
  }
  return responses;
}

/** Answers of every `/v1` route (and `/metrics`) when API keys are on. */
export const AUTH_ERRORS = {
  UNAUTHORIZED: 'API key missing or not "Bearer <key>"',
  FORBIDDEN: 'The API key is not valid',
} as const satisfies Partial<Record<ErrorCode, string>>;

/**
 * Codes any route may answer with, described once in `components/responses`
 * rather than on each operation: an unknown path or method, an over-long URL
 * or header block, and a bug.
 */
export const ANY_ROUTE_ERRORS = {
  NOT_FOUND: 'No route for this path',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method (see the allow header)',
  URI_TOO_LONG: 'The URL is too long',
  HEADERS_TOO_LARGE: 'The request headers are too large',
  INTERNAL: 'A bug; logged with its trace id, no stack in the answer',
} as const satisfies Partial<Record<ErrorCode, string>>;
