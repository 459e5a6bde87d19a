/**
 * One raw request to the agent under test, read to its end under the client's
 * byte cap and the endpoint timeout. Unlike the agent client, a probe keeps
 * every SSE event (the client stops at the first `result`), so framing can be
 * judged; the reply itself is still judged by the client's own parser.
 */
import { createParser } from 'eventsource-parser';
import { describeError, readBoundedBody } from '../agents/protocols/http-common.js';

/** One SSE event as it arrived. */
export interface ProbeEvent {
  readonly event: string;
  readonly data: string;
}

/** What one probe saw. `httpStatus` is undefined when no response arrived. */
export interface ProbeResult {
  readonly httpStatus?: number;
  readonly contentType: string;
  readonly durationMs: number;
  /** The body text (complete unless `timedOut`, `tooLarge` or `error`). */
  readonly text: string;
  readonly timedOut: boolean;
  readonly tooLarge: boolean;
  /** Connection-level failure (refused, reset), with its cause. */
  readonly error?: string;
  /** Parsed SSE events when the reply was an event stream. */
  readonly events: readonly ProbeEvent[];
}

/** How to send one probe. */
export interface ProbeOptions {
  readonly fetch: typeof globalThis.fetch;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly accept: string;
  readonly body: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Sends one POST and reads the reply; never throws. */
export async function sendProbe(options: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const elapsed = () => Math.round(performance.now() - started);
  const events: ProbeEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event ?? 'message', data: event.data }) });
  try {
    let response: Response;
    try {
      response = await options.fetch(options.url, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json', accept: options.accept },
        body: options.body,
        signal: controller.signal,
      });
    } catch (error) {
      return { contentType: '', durationMs: elapsed(), text: '', timedOut, tooLarge: false, error: timedOut ? undefined : describeError(error), events };
    }
    const contentType = response.headers.get('content-type') ?? '';
    const streaming = contentType.toLowerCase().startsWith('text/event-stream');
    const read = await readBoundedBody(response, options.maxBytes, (text) => {
      if (streaming) parser.feed(text);
    });
    const base = { httpStatus: response.status, contentType, durationMs: elapsed(), events };
    if (read.ok) return { ...base, text: read.text, timedOut: false, tooLarge: false };
    if (read.kind === 'too_large') return { ...base, text: '', timedOut: false, tooLarge: true };
    return { ...base, text: '', timedOut, tooLarge: false, error: timedOut ? undefined : describeError(read.error) };
  } finally {
    clearTimeout(timer);
  }
}
