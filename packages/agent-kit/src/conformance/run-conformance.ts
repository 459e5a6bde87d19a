/**
 * The conformance suite of docs/api.md#sub-agent-wire-protocol run against a live sub-agent. Seven
 * probes (a well-formed request, one without inputs, a retry with the same
 * `task_id`, two malformed requests, an oversized one, and a last well-formed
 * one) feed the checks below. Switchboard's own `check-agent` hands in its
 * client's envelope parser and byte cap, so what passes there is what the
 * client accepts; the kit's defaults follow the same schema.
 */
import { isDeepStrictEqual } from 'node:util';
import { randomUUID } from 'node:crypto';
import { checkAgentReply, parseJson, type AgentReply, type AgentRequestBody } from '../wire.js';
import { describeReceived, describeSent, expectationOf } from './evidence.js';
import { sendProbe, type ProbeResult } from './probe.js';
import type { CheckLevel, CheckOutcome, CheckResult, ConformanceReport, ConformanceTarget } from './types.js';

/** Dependencies of a run. */
export interface ConformanceOptions {
  fetch?: typeof globalThis.fetch;
  /** Byte cap of a reply; the agent client's default unless given. */
  maxResponseBytes?: number;
  /** Size of the `message` of the oversized request. */
  largeRequestBytes?: number;
  /** Reads a reply text (`what` names it in the problem); default: JSON, then the reply envelope. */
  parseReply?: (text: string, what: string) => Judged;
}

/** Largest reply body (or single event) accepted unless told otherwise: Switchboard's client default. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;

/** The kit's reading of a reply text: JSON, then the reply envelope. */
export function parseReplyText(text: string, what: string): Judged {
  if (text.trim() === '') return { ok: false, problem: `${what} was empty` };
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, problem: `${what} is not JSON (${parsed.error})` };
  const checked = checkAgentReply(parsed.value);
  return checked.ok ? { ok: true, reply: checked.value } : { ok: false, problem: `${what} is not a valid reply: ${checked.error}` };
}

type Protocol = 'http-json' | 'http-sse';

/** What a probe's reply amounts to once read like the client reads it. */
export type Judged = { ok: true; reply: AgentReply } | { ok: false; problem: string };

/** Runs every check against `target`; never throws for agent misbehaviour. */
export async function runConformance(target: ConformanceTarget, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const fetchFunction = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const parseReply = options.parseReply ?? parseReplyText;
  const judge = (result: ProbeResult, protocol: Protocol) => judgeProbe(parseReply, result, protocol);
  const checks: CheckResult[] = [];
  const limits = () => ({ timeoutMs: target.timeoutMs, maxBytes, protocol: protocol ?? 'http-json', requiredKeys: target.requiredKeys });
  // A failed check carries what was sent, what came back and what was expected.
  const record: Recorder = (id, level, outcome, detail, seen) =>
    checks.push(
      outcome === 'fail' && seen
        ? { id, level, outcome, detail, sent: describeSent(target.url, seen.body), received: describeReceived(seen.probe), expected: expectationOf(id, limits()) }
        : { id, level, outcome, detail },
    );
  const traceId = `check-${randomUUID()}`;
  const headers = { ...target.headers, 'x-request-id': randomUUID(), 'x-trace-id': traceId, 'x-switchboard-depth': '1' };
  const requestBody = (taskId: string, inputs: Readonly<Record<string, unknown>>, message = 'conformance check'): AgentRequestBody => ({
    task_id: taskId,
    message,
    inputs: { ...inputs },
    user_id: 'check-agent',
    thread_id: `check-${taskId}`,
    trace_id: traceId,
    upstream: {},
  });
  let protocol: Protocol | undefined = target.protocol;
  const accept = () => (protocol === 'http-sse' ? 'text/event-stream' : protocol === 'http-json' ? 'application/json' : 'application/json, text/event-stream');
  const probe = (body: string) =>
    sendProbe({ fetch: fetchFunction, url: target.url, headers, accept: accept(), body, timeoutMs: target.timeoutMs, maxBytes });

  // 1. A well-formed request with the sample inputs.
  const taskId = `check_${randomUUID()}_task_1`;
  const firstBody = JSON.stringify(requestBody(taskId, target.inputs));
  const first = await probe(firstBody);
  protocol ??= first.contentType.toLowerCase().startsWith('text/event-stream') ? 'http-sse' : 'http-json';
  const firstJudged = judge(first, protocol);
  const onFirst = { probe: first, body: firstBody };

  if (first.httpStatus === undefined && !first.timedOut) {
    // Nothing answered at all (refused, unknown host, bad port): every other check has nothing to judge.
    record('http_status', 'MUST', 'fail', `the agent is unreachable: ${first.error ?? 'no answer'}`, onFirst);
    for (const [id, level] of UNJUDGED_WHEN_UNREACHABLE) record(id, level, 'skip', 'no reply: the agent is unreachable');
    return { target: { url: target.url, protocol, ...(target.agentId ? { agent_id: target.agentId } : {}) }, checks, passed: false };
  }
  record('http_status', 'MUST', first.httpStatus !== undefined && first.httpStatus >= 200 && first.httpStatus < 300 ? 'pass' : 'fail', describeStatus(first), onFirst);
  record('timeout', 'MUST', first.timedOut ? 'fail' : 'pass', first.timedOut ? `no complete reply within ${target.timeoutMs} ms` : `replied in ${first.durationMs} ms (limit ${target.timeoutMs} ms)`, onFirst);
  if (first.httpStatus === undefined) record('reply_size', 'MUST', 'skip', 'no reply to measure');
  else record('reply_size', 'MUST', first.tooLarge ? 'fail' : 'pass', first.tooLarge ? `reply exceeded ${maxBytes} bytes` : `${Buffer.byteLength(first.text)} bytes (limit ${maxBytes})`, onFirst);
  record('envelope_shape', 'MUST', firstJudged.ok ? 'pass' : 'fail', firstJudged.ok ? `valid reply envelope, status "${firstJudged.reply.status}"` : firstJudged.problem, onFirst);
  const expectedType = protocol === 'http-sse' ? 'text/event-stream' : 'application/json';
  const typeOk = first.contentType.toLowerCase().startsWith(expectedType);
  record('content_type', protocol === 'http-sse' ? 'MUST' : 'SHOULD', typeOk ? 'pass' : 'fail', `content-type "${first.contentType || 'none'}" (expected ${expectedType})`, onFirst);
  if (protocol === 'http-sse') recordStreamChecks(first, record, onFirst);

  checkOutput(firstJudged, target, record, onFirst);

  // 2. No inputs at all: an agent that needs keys asks for them by name.
  const bareBody = JSON.stringify(requestBody(`check_${randomUUID()}_task_2`, {}));
  const bare = await probe(bareBody);
  const bareJudged = judge(bare, protocol);
  const onBare = { probe: bare, body: bareBody };
  checkInputRequired([firstJudged, bareJudged], record, [onFirst, onBare]);
  if (target.requiredKeys.length > 0) {
    const asked = bareJudged.ok && bareJudged.reply.status !== 'completed';
    record(
      'missing_inputs_not_completed',
      'SHOULD',
      asked ? 'pass' : 'fail',
      bareJudged.ok
        ? `without ${target.requiredKeys.join(', ')} the agent answered "${bareJudged.reply.status}"`
        : `without inputs: ${bareJudged.problem}`,
      onBare,
    );
  }
  const failedWithoutMessage = [firstJudged, bareJudged].find((judged) => judged.ok && judged.reply.status === 'failed' && !judged.reply.message?.trim());
  if (!firstJudged.ok && !bareJudged.ok) record('failed_has_message', 'SHOULD', 'skip', 'no valid reply to judge');
  else {
    record(
      'failed_has_message',
      'SHOULD',
      failedWithoutMessage ? 'fail' : 'pass',
      failedWithoutMessage ? 'a "failed" reply carries no message for the user' : 'every "failed" reply seen explains itself (or none was seen)',
      failedWithoutMessage === firstJudged ? onFirst : onBare,
    );
  }

  // 3. The same request again, same task_id: a retry must be safe.
  const retry = await probe(firstBody);
  const retryJudged = judge(retry, protocol);
  checkRetry(firstJudged, retryJudged, record, target.sideEffects === true, { probe: retry, body: firstBody });

  // 4. Malformed requests: rejected with a 4xx, not a crash or a hang.
  const notJsonBody = '{"task_id": "broken';
  const notJson = await probe(notJsonBody);
  record('bad_json_rejected', 'SHOULD', isClientError(notJson) ? 'pass' : 'fail', `body that is not JSON: ${describeStatus(notJson)}`, { probe: notJson, body: notJsonBody });
  const noTaskIdBody = JSON.stringify({ ...requestBody('x', target.inputs), task_id: undefined });
  const noTaskId = await probe(noTaskIdBody);
  record('missing_task_id_rejected', 'SHOULD', isClientError(noTaskId) ? 'pass' : 'fail', `body without task_id: ${describeStatus(noTaskId)}`, { probe: noTaskId, body: noTaskIdBody });

  // 5. An oversized request: a 413 or a normal reply, within the timeout.
  const largeBytes = options.largeRequestBytes ?? 512 * 1024;
  const largeBody = JSON.stringify(requestBody(`check_${randomUUID()}_task_3`, target.inputs, 'x'.repeat(largeBytes)));
  const large = await probe(largeBody);
  const largeJudged = large.httpStatus === 413 ? undefined : judge(large, protocol);
  const largeOk = large.httpStatus === 413 || (large.httpStatus !== undefined && largeJudged?.ok === true);
  const largeProblem = largeJudged && !largeJudged.ok ? `: ${largeJudged.problem}` : '';
  record('large_request', 'SHOULD', largeOk ? 'pass' : 'fail', `a ${Math.round(largeBytes / 1024)} KiB request: ${describeStatus(large)}${largeOk ? '' : largeProblem}`, { probe: large, body: largeBody });

  // 6. Still serving after all of the above.
  const lastBody = JSON.stringify(requestBody(`check_${randomUUID()}_task_4`, target.inputs));
  const last = await probe(lastBody);
  const lastJudged = judge(last, protocol);
  record(
    'still_serving',
    'MUST',
    lastJudged.ok ? 'pass' : 'fail',
    lastJudged.ok ? 'a well-formed request after the malformed ones got a valid reply' : `after the malformed requests: ${lastJudged.problem}`,
    { probe: last, body: lastBody },
  );

  return {
    target: { url: target.url, protocol, ...(target.agentId ? { agent_id: target.agentId } : {}) },
    checks,
    passed: checks.every((check) => check.level !== 'MUST' || check.outcome !== 'fail'),
  };
}

/** The probe a check judged and the body it sent (shown when the check fails). */
interface Seen {
  readonly probe: ProbeResult;
  readonly body: string;
}

type Recorder = (id: string, level: CheckLevel, outcome: CheckOutcome, detail: string, seen?: Seen) => void;

/** The checks after `http_status`, in report order: skipped when the agent never answered. */
const UNJUDGED_WHEN_UNREACHABLE: readonly (readonly [string, CheckLevel])[] = [
  ['timeout', 'MUST'],
  ['reply_size', 'MUST'],
  ['envelope_shape', 'MUST'],
  ['content_type', 'SHOULD'],
  ['output_schema', 'MUST'],
  ['input_required_missing_keys', 'MUST'],
  ['idempotent_retry', 'MUST'],
  ['bad_json_rejected', 'SHOULD'],
  ['missing_task_id_rejected', 'SHOULD'],
  ['large_request', 'SHOULD'],
  ['still_serving', 'MUST'],
];

/** Reads a probe's reply as the client would: JSON body, or the data of the one `result` event. */
function judgeProbe(parseReply: (text: string, what: string) => Judged, probe: ProbeResult, protocol: Protocol): Judged {
  if (probe.httpStatus === undefined) return { ok: false, problem: probe.timedOut ? 'no reply before the timeout' : `no reply: ${probe.error ?? 'unknown error'}` };
  if (probe.httpStatus < 200 || probe.httpStatus >= 300) return { ok: false, problem: `HTTP ${probe.httpStatus}` };
  if (probe.tooLarge) return { ok: false, problem: 'the reply exceeded the byte limit' };
  if (protocol === 'http-sse') {
    const result = probe.events.find((event) => event.event === 'result');
    if (!result) return { ok: false, problem: `the event stream has no result event (${probe.events.length} events)` };
    return parseReply(result.data, 'the result event');
  }
  if (probe.timedOut || probe.error) return { ok: false, problem: probe.timedOut ? 'the body did not arrive before the timeout' : `the body broke off: ${probe.error}` };
  return parseReply(probe.text, 'the reply body');
}

function recordStreamChecks(probe: ProbeResult, record: Recorder, seen: Seen): void {
  const results = probe.events.filter((event) => event.event === 'result');
  const resultIndex = probe.events.findIndex((event) => event.event === 'result');
  const afterResult = resultIndex >= 0 ? probe.events.length - resultIndex - 1 : 0;
  const single = results.length === 1 && afterResult === 0;
  record(
    'sse_single_result',
    'MUST',
    single ? 'pass' : 'fail',
    results.length === 1 ? (afterResult === 0 ? 'exactly one result event, last in the stream' : `${afterResult} events after the result event`) : `${results.length} result events (expected exactly one)`,
    seen,
  );
  const progress = probe.events.filter((event) => event.event === 'progress');
  const badProgress = progress.filter((event) => {
    try {
      const value = JSON.parse(event.data) as { content?: unknown };
      return typeof value !== 'object' || value === null || typeof value.content !== 'string';
    } catch {
      return true;
    }
  });
  record('sse_progress_shape', 'SHOULD', badProgress.length === 0 ? 'pass' : 'fail', badProgress.length === 0 ? `${progress.length} progress events, each {"content": string}` : `${badProgress.length} of ${progress.length} progress events are not {"content": string}`, seen);
  record('sse_stream_closes', 'SHOULD', probe.timedOut && results.length > 0 ? 'fail' : 'pass', probe.timedOut && results.length > 0 ? 'the stream stayed open after the result event' : 'the stream ended after the result event', seen);
}

function checkOutput(judged: Judged, target: ConformanceTarget, record: Recorder, seen: Seen): void {
  if (!judged.ok) return record('output_schema', 'MUST', 'skip', 'no valid reply to check');
  if (judged.reply.status !== 'completed') {
    return record('output_schema', 'MUST', 'skip', `status "${judged.reply.status}": pass --inputs so the agent completes`);
  }
  if (!target.checkOutput) {
    return record('output_schema', 'MUST', 'skip', 'no output_schema known (check a registered agent id to compare against its card)');
  }
  const problem = target.checkOutput(judged.reply);
  record('output_schema', 'MUST', problem ? 'fail' : 'pass', problem ?? 'output meets the card\'s output_schema', seen);
}

function checkInputRequired(judgedReplies: readonly Judged[], record: Recorder, seen: readonly Seen[]): void {
  const asking = judgedReplies.flatMap((judged) => (judged.ok && judged.reply.status === 'input_required' ? [judged.reply] : []));
  if (asking.length === 0) return record('input_required_missing_keys', 'MUST', 'skip', 'the agent never answered input_required');
  const bad = asking.find((reply) => !reply.missing_keys || reply.missing_keys.length === 0);
  const badAt = judgedReplies.findIndex((judged) => judged.ok && judged.reply === bad);
  record(
    'input_required_missing_keys',
    'MUST',
    bad ? 'fail' : 'pass',
    bad ? 'an input_required reply has no missing_keys' : `input_required names missing_keys: ${asking[0]!.missing_keys!.join(', ')}`,
    seen[badAt],
  );
}

/**
 * A retry with the same task_id answers the same status (MUST) and the same
 * output: a SHOULD in general, a MUST for an agent whose card has
 * `side_effects` (a different output on retry is a second booking).
 */
function checkRetry(first: Judged, retry: Judged, record: Recorder, sideEffects: boolean, seen: Seen): void {
  if (!retry.ok) return record('idempotent_retry', 'MUST', 'fail', `the retry with the same task_id: ${retry.problem}`, seen);
  if (!first.ok) return record('idempotent_retry', 'MUST', 'skip', 'the first reply was not valid, nothing to compare');
  const sameStatus = first.reply.status === retry.reply.status;
  record('idempotent_retry', 'MUST', sameStatus ? 'pass' : 'fail', sameStatus ? `the retry with the same task_id answered "${retry.reply.status}" again` : `the retry answered "${retry.reply.status}" after "${first.reply.status}"`, seen);
  const sameOutput = isDeepStrictEqual(first.reply.output, retry.reply.output);
  const level = sideEffects ? 'MUST' : 'SHOULD';
  const because = sideEffects ? ' (the card has side_effects)' : '';
  record('idempotent_output', level, sameOutput ? 'pass' : 'fail', sameOutput ? `the retry returned the same output${because}` : `the retry returned a different output (a second booking?)${because}`, seen);
}

function isClientError(probe: ProbeResult): boolean {
  return probe.httpStatus !== undefined && probe.httpStatus >= 400 && probe.httpStatus < 500;
}

function describeStatus(probe: ProbeResult): string {
  if (probe.httpStatus !== undefined) return `HTTP ${probe.httpStatus} in ${probe.durationMs} ms`;
  if (probe.timedOut) return `no answer within ${probe.durationMs} ms`;
  return `no answer: ${probe.error ?? 'unknown error'}`;
}
