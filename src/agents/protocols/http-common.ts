/**
 * Pieces both HTTP adapters share: a size-capped body reader, the wording of
 * transport failures, and the parsing of the reply envelope. Reasons name the
 * target by host and path only — a query string or userinfo may hold a secret.
 */
import { redactSecrets } from '../failure-reason.js';
import type { EnvelopeValidator } from '../reply-envelope.js';
import { safeJsonParse } from '../../util/index.js';
import { agentByteBudget, withinByteBudget, type ByteBudget } from '../byte-budget.js';
import { budgetedChunks } from '../budgeted-body.js';
import type { AttemptResult, ProtocolAttempt } from './protocol-adapter.js';
import type { AgentHttpReply } from '../agent-transport.js';

/** The result of reading a body under a byte cap. */
export type BoundedRead =
  | { ok: true; text: string; stopped: boolean }
  | { ok: false; kind: 'too_large'; bytesRead: number; /** The cap that was passed, when not the reply cap. */ limit?: number }
  | { ok: false; kind: 'read_error'; error: unknown };

/**
 * Reads a reply body chunk by chunk, giving up as soon as more than
 * `maxBytes` arrived. `onText` receives each decoded piece; returning `true`
 * stops reading early (the rest of the body is dropped).
 */
export async function readBoundedBody(
  reply: AgentHttpReply,
  maxBytes: number,
  onText?: (text: string) => boolean | void,
  options: { keepText?: boolean; budget?: ByteBudget } = {},
): Promise<BoundedRead> {
  // Every chunk is handled within the process-wide budget of sub-agent bytes in flight (`byte-budget.ts`).
  const budget = options.budget ?? agentByteBudget;
  // A reader that consumes the pieces as they come (an event stream) need not hold them all.
  const keepText = options.keepText ?? true;
  const declared = Number(reply.header('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await reply.discard();
    return { ok: false, kind: 'too_large', bytesRead: 0 };
  }
  if (!reply.body) return { ok: true, text: '', stopped: false };
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let bytesRead = 0;
  // Undici's stream is charged as each chunk arrives (`budgeted-body.ts`); another body (a fetch) as each is handled.
  const charged = reply.stream !== undefined;
  const handleCharged = async <T>(bytes: number, handle: () => T): Promise<T> => {
    try {
      return handle();
    } finally {
      await new Promise<void>((resolve) => setImmediate(resolve));
      budget.release(bytes);
    }
  };
  try {
    // Leaving the loop early (a return or a throw) drops the rest of the body.
    for await (const value of reply.stream ? budgetedChunks(reply.stream, budget) : reply.body) {
      bytesRead += value.byteLength;
      if (bytesRead > maxBytes) {
        if (charged) budget.release(value.byteLength);
        return { ok: false, kind: 'too_large', bytesRead };
      }
      const handle = () => {
        const text = decoder.decode(value, { stream: true });
        if (keepText) pieces.push(text);
        return onText?.(text) === true;
      };
      const stop = charged ? await handleCharged(value.byteLength, handle) : await withinByteBudget(budget, value.byteLength, handle);
      if (stop) return { ok: true, text: pieces.join(''), stopped: true };
    }
  } catch (error) {
    await reply.discard();
    return { ok: false, kind: 'read_error', error };
  }
  const tail = decoder.decode();
  if (tail) {
    if (keepText) pieces.push(tail);
    onText?.(tail);
  }
  return { ok: true, text: pieces.join(''), stopped: false };
}

/** Discards a body we will not read. */
export async function cancelQuietly(reply: AgentHttpReply): Promise<void> {
  await reply.discard().catch(() => undefined);
}

/** `host:port/path` of an endpoint, without query string or credentials. */
export function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the endpoint';
  }
}

/** Replaces every header value (secrets included) found in `text` with `[redacted]`. */
export function redactHeaderValues(text: string, headers: Readonly<Record<string, string>>): string {
  return redactSecrets(text, Object.values(headers));
}

/** Sends the POST (never following a redirect, `agent-transport.ts`); a send that gets no reply becomes a `connect_error` result. */
export async function postJson(
  attempt: ProtocolAttempt,
  accept: string,
): Promise<{ ok: true; response: AgentHttpReply } | { ok: false; result: AttemptResult }> {
  try {
    const response = await attempt.post({
      url: attempt.url,
      headers: { ...attempt.headers, 'content-type': 'application/json', accept },
      body: JSON.stringify(attempt.body),
      signal: attempt.signal,
    });
    return { ok: true, response };
  } catch (error) {
    const detail = redactHeaderValues(describeError(error), attempt.headers);
    return {
      ok: false,
      result: { ok: false, code: 'connect_error', reason: `could not reach ${describeTarget(attempt.url)}: ${detail}` },
    };
  }
}

/** Whether a reply's status is 2xx. */
export function isSuccess(response: AgentHttpReply): boolean {
  return response.status >= 200 && response.status < 300;
}

/** Turns a non-2xx response into an `http_status` result (the body is discarded). */
export async function statusFailure(response: AgentHttpReply, url: string): Promise<AttemptResult> {
  await cancelQuietly(response);
  if (response.status >= 300 && response.status < 400) {
    return { ok: false, code: 'http_status', httpStatus: response.status, reason: `${describeTarget(url)} answered with a redirect (HTTP ${response.status}); redirects are not followed` };
  }
  const text = response.statusText ? ` ${response.statusText}` : '';
  return {
    ok: false,
    code: 'http_status',
    httpStatus: response.status,
    reason: `${describeTarget(url)} answered HTTP ${response.status}${text}`,
  };
}

/** Maps a failed bounded read to a result. */
export function readFailure(read: Exclude<BoundedRead, { ok: true }>, attempt: ProtocolAttempt, what: string): AttemptResult {
  if (read.kind === 'too_large') {
    return {
      ok: false,
      code: 'too_large',
      reason: `${what} from ${describeTarget(attempt.url)} exceeded the ${read.limit ?? attempt.maxResponseBytes}-byte limit`,
    };
  }
  const detail = redactHeaderValues(describeError(read.error), attempt.headers);
  return { ok: false, code: 'bad_body', reason: `the connection broke while reading ${what}: ${detail}` };
}

/** Parses reply text as the JSON envelope of docs/api.md#sub-agent-wire-protocol and checks its shape. */
export function parseReplyText(envelope: EnvelopeValidator, text: string, what: string): AttemptResult {
  if (text.trim() === '') return { ok: false, code: 'bad_body', reason: `${what} was empty` };
  const parsed = safeJsonParse(text);
  if (!parsed.ok) return { ok: false, code: 'bad_body', reason: `${what} is not JSON (${parsed.error})` };
  const checked = envelope.parseReply(parsed.value);
  if (!checked.ok) return { ok: false, code: 'bad_body', reason: `${what} is not a valid reply: ${checked.error}` };
  return { ok: true, reply: checked.value };
}

/** A short message for any thrown value, using the network cause when there is one (`CODE (message)`). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  // fetch wraps the network error as its cause; undici.request rejects with it directly.
  const network = cause instanceof Error ? cause : error;
  const code = (network as Error & { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? `${code} (${network.message})` : network.message;
}
