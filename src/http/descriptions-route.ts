/**
 * `GET /openapi.json` and `GET /v1/schemas/response-state.json`: the API and
 * event descriptions (the top of docs/api.md), built once at start.
 */
import type { RequestHandler } from 'express';
import { readResponseStateSchema } from '../events/index.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** Serves the OpenAPI 3.1 document. */
export function createOpenApiHandler(options: { maxQueryChars?: number; keysOn?: boolean } = {}): RequestHandler {
  const text = JSON.stringify(buildOpenApiDocument({ maxQueryChars: options.maxQueryChars, keysOn: options.keysOn }));
  return (_request, response) => {
    response.setHeader('cache-control', 'no-cache');
    response.type('application/json').send(text);
  };
}

/** Serves the JSON Schema of one ResponseState event. */
export function createResponseStateSchemaHandler(): RequestHandler {
  const text = JSON.stringify(readResponseStateSchema());
  return (_request, response) => {
    response.setHeader('cache-control', 'no-cache');
    response.type('application/schema+json').send(text);
  };
}
