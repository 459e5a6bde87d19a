/**
 * One raw request to the agent under test, read to its end under the client's
 * byte cap and the endpoint timeout. Unlike the agent client, a probe keeps
 * every SSE event (the client stops at the first `result`), so framing can be
 * judged.
 */
import { createSseParser } from './sse-parser.js';

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
  const feed = createSseParser((event) => events.push(event));
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
      if (streaming) feed(text);
    });
    const base = { httpStatus: response.status, contentType, durationMs: elapsed(), events };
    if (read.ok) return { ...base, text: read.text, timedOut: false, tooLarge: false };
    if (read.kind === 'too_large') return { ...base, text: '', timedOut: false, tooLarge: true };
    return { ...base, text: '', timedOut, tooLarge: false, error: timedOut ? undefined : describeError(read.error) };
  } finally {
    clearTimeout(timer);
  }
}

type BoundedRead = { ok: true; text: string } | { ok: false; kind: 'too_large' } | { ok: false; kind: 'error'; error: unknown };

/** Reads a body up to `maxBytes` (a declared or actual larger one stops early), handing each piece of text on. */
async function readBoundedBody(response: Response, maxBytes: number, onText: (text: string) => void): Promise<BoundedRead> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, kind: 'too_large' };
  }
  if (!response.body) return { ok: true, text: '' };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let bytesRead = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytesRead += value.byteLength;
      if (bytesRead > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, kind: 'too_large' };
      }
      const text = decoder.decode(value, { stream: true });
      pieces.push(text);
      onText(text);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    return { ok: false, kind: 'error', error };
  }
  const rest = decoder.decode();
  if (rest) {
    pieces.push(rest);
    onText(rest);
  }
  return { ok: true, text: pieces.join('') };
}

/** A short message for any thrown value, using the network cause when there is one. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: string }).code;
    return code ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}
