/**
 * `http-json`: one POST, one JSON reply envelope in the body.
 */
import type { EnvelopeValidator } from '../reply-envelope.js';
import type { ProtocolAdapter } from './protocol-adapter.js';
import { isSuccess, parseReplyText, postJson, readBoundedBody, readFailure, statusFailure } from './http-common.js';

/** Creates the adapter for agents that answer with a single JSON body. */
export function createHttpJsonAdapter({ envelope }: { envelope: EnvelopeValidator }): ProtocolAdapter {
  return {
    protocol: 'http-json',
    async invoke(attempt) {
      const sent = await postJson(attempt, 'application/json');
      if (!sent.ok) return sent.result;
      const { response } = sent;
      if (!isSuccess(response)) return statusFailure(response, attempt.url);
      const read = await readBoundedBody(response, attempt.maxResponseBytes);
      if (!read.ok) return readFailure(read, attempt, 'the reply body');
      return parseReplyText(envelope, read.text, 'the reply body');
    },
  };
}
