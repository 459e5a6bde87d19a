/**
 * The wire schemas of docs/api.md#sub-agent-wire-protocol, read from `schemas/` (the single source of
 * truth the agent kit and the API description also publish): the reply
 * envelope every sub-agent sends (the `http-json` body or the SSE `result`
 * event), checked with ajv before anything reads it, and the request body.
 * Extra fields are allowed in both so the protocol can grow.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { describeAjvErrors, packageFileUrl, validateValue, type SafeJsonResult } from '../util/index.js';
import type { AgentReply, AgentRequestBody } from './types.js';

function readSchema(name: string): Readonly<Record<string, unknown>> {
  return Object.freeze(JSON.parse(readFileSync(packageFileUrl(`schemas/${name}`), 'utf8')) as Record<string, unknown>);
}

/** JSON Schema of the reply envelope (`schemas/agent-reply.schema.json`). */
export const AGENT_REPLY_SCHEMA = readSchema('agent-reply.schema.json');

/** JSON Schema of the request body (`schemas/agent-request.schema.json`). */
export const AGENT_REQUEST_SCHEMA = readSchema('agent-request.schema.json');

/** Checks already-parsed values against the wire schemas. */
export interface EnvelopeValidator {
  /** The value as a reply envelope, or why it is not one. */
  parseReply(value: unknown): SafeJsonResult<AgentReply>;
  /** The value as a request body, or why it is not one. */
  parseRequest(value: unknown): SafeJsonResult<AgentRequestBody>;
}

/** Compiles both wire schemas once; build one per client, server or conformance run and pass it on. */
export function createEnvelopeValidator(): EnvelopeValidator {
  const ajv = new Ajv({ allErrors: true, strict: true });
  const validateReply = ajv.compile(AGENT_REPLY_SCHEMA);
  const validateRequest = ajv.compile(AGENT_REQUEST_SCHEMA);
  return {
    parseReply: (value) => validateValue<AgentReply>(value, validateReply),
    parseRequest: (value) => validateValue<AgentRequestBody>(value, validateRequest),
  };
}

/**
 * Why a `completed` reply's `output` fails the card's `output_schema`, or
 * undefined when it meets it (or there is no schema, or the reply is not
 * `completed`). The client and `check-agent` judge output with this one rule.
 */
export function outputSchemaProblem(reply: AgentReply, validateOutput: ValidateFunction | undefined): string | undefined {
  if (reply.status !== 'completed' || !validateOutput) return undefined;
  if (reply.output === undefined) return 'the reply has no output but the card declares an output_schema';
  if (!validateOutput(reply.output)) return `output does not match output_schema: ${describeAjvErrors(validateOutput)}`;
  return undefined;
}
