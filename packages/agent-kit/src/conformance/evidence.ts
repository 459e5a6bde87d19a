/**
 * What a failed check shows besides its one-sentence detail: the request that
 * was sent, what came back, and what the check expected — so a developer reads
 * "got {"status":"ok"}, expected one of completed, failed, input_required"
 * instead of only the name of the rule. Header values are never shown.
 */
import type { ProbeResult } from './probe.js';

/** The three lines printed under a failed check. */
export interface Evidence {
  readonly sent: string;
  readonly received: string;
  readonly expected: string;
}

const SHOWN_CHARS = 240;

/** `text` cut to a readable length, saying how long it was when cut. */
export function excerpt(text: string, limit = SHOWN_CHARS): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  if (flat.length <= limit) return flat;
  return `${flat.slice(0, limit)}… (${Buffer.byteLength(text)} bytes in all)`;
}

/** The request line and body of a probe, as sent (long fields cut). */
export function describeSent(url: string, body: string): string {
  let shown = body;
  try {
    const value = JSON.parse(body) as Record<string, unknown>;
    if (value && typeof value === 'object') {
      shown = JSON.stringify(value, (_key, field: unknown) => (typeof field === 'string' && field.length > 60 ? `${field.slice(0, 20)}…(${field.length} chars)` : field));
    }
  } catch {
    // Not JSON (the malformed probe): shown as is.
  }
  const cut = excerpt(shown).replace(/… \(\d+ bytes in all\)$/, '…');
  return `POST ${url} ${cut}${cut === shown ? '' : ` (${Buffer.byteLength(body)} bytes sent)`}`;
}

/** What came back: status, content type and the body (or the events of a stream), or why nothing did. */
export function describeReceived(probe: ProbeResult): string {
  if (probe.httpStatus === undefined) {
    return probe.timedOut ? `nothing within ${probe.durationMs} ms` : `no answer: ${probe.error ?? 'unknown error'}`;
  }
  const head = `HTTP ${probe.httpStatus} ${probe.contentType || '(no content-type)'}`;
  if (probe.tooLarge) return `${head}, more bytes than the limit`;
  if (probe.events.length > 0) {
    const counts = new Map<string, number>();
    for (const event of probe.events) counts.set(event.event, (counts.get(event.event) ?? 0) + 1);
    const result = probe.events.find((event) => event.event === 'result');
    const listed = [...counts].map(([name, count]) => `${name}×${count}`).join(', ');
    return `${head}, events ${listed}${result ? `; result: ${excerpt(result.data)}` : ''}${probe.timedOut ? '; the stream stayed open' : ''}`;
  }
  const body = probe.text.trim() === '' ? '(empty body)' : excerpt(probe.text);
  return `${head} ${body}${probe.timedOut ? ' (cut off at the timeout)' : ''}`;
}

/** What each check expects, by check id (the reply envelope is schemas/agent-reply.schema.json). */
export function expectationOf(id: string, limits: { timeoutMs: number; maxBytes: number; protocol: string; requiredKeys: readonly string[] }): string {
  const envelope = 'a reply envelope {"status": "completed" | "failed" | "input_required", "output"?: object, "message"?: string, "missing_keys"?: string[]}';
  switch (id) {
    case 'http_status':
      return 'an HTTP 2xx answer';
    case 'timeout':
      return `a complete reply within ${limits.timeoutMs} ms`;
    case 'reply_size':
      return `a reply of at most ${limits.maxBytes} bytes`;
    case 'envelope_shape':
    case 'still_serving':
      return limits.protocol === 'http-sse' ? `one "result" event whose data is ${envelope}` : envelope;
    case 'content_type':
      return `content-type ${limits.protocol === 'http-sse' ? 'text/event-stream' : 'application/json'}`;
    case 'output_schema':
      return "a completed reply whose output meets the card's output_schema";
    case 'input_required_missing_keys':
      return 'an input_required reply with "missing_keys": a non-empty array naming the keys it needs';
    case 'missing_inputs_not_completed':
      return `without ${limits.requiredKeys.join(', ')}: status "input_required" naming them in "missing_keys" (or "failed"), not "completed"`;
    case 'failed_has_message':
      return 'a "failed" reply with a "message" for the user';
    case 'idempotent_retry':
      return 'the same status as the first reply to this task_id';
    case 'idempotent_output':
      return 'the same output as the first reply to this task_id';
    case 'bad_json_rejected':
    case 'missing_task_id_rejected':
      return 'an HTTP 4xx answer (400 naming the problem)';
    case 'large_request':
      return `HTTP 413, or ${envelope}, within ${limits.timeoutMs} ms`;
    case 'sse_single_result':
      return 'exactly one "result" event, the last one of the stream';
    case 'sse_progress_shape':
      return 'every "progress" event\'s data is {"content": string}';
    case 'sse_stream_closes':
      return 'the stream ends after the "result" event';
    default:
      return 'see docs/api.md#sub-agent-wire-protocol';
  }
}
