/**
 * The load bench's client: one chat turn over a keep-alive connection,
 * timing the first SSE event and the end of the stream, with nothing parsed
 * but the `done` event.
 */
import { Agent, request } from 'node:http';

export const clientAgent = new Agent({ keepAlive: true, maxSockets: 1024 });

export interface TurnTiming {
  /** ms from `startedAt` to the first `data:` byte. */
  firstByteMs: number;
  /** ms from `startedAt` to the end of the stream. */
  doneMs: number;
  /** The `done` event's outcome, or the error text. */
  outcome: string;
  /** The raw SSE text (kept only when asked). */
  text?: string;
}

/** Sends one turn; `startedAt` (performance.now()) is when it was due, so a late start counts. */
export function sendTurn(baseUrl: string, body: Record<string, unknown>, startedAt: number, keepText = false): Promise<TurnTiming> {
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    let firstByteMs = -1;
    let text = '';
    const fail = (error: Error) => resolve({ firstByteMs, doneMs: performance.now() - startedAt, outcome: `error: ${error.message}` });
    const outgoing = request(
      `${baseUrl}/v1/chat`,
      { method: 'POST', agent: clientAgent, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(payload) } },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (firstByteMs < 0 && chunk.includes('data:')) firstByteMs = performance.now() - startedAt;
          text += chunk;
        });
        response.on('end', () => {
          const doneMs = performance.now() - startedAt;
          if (response.statusCode !== 200) {
            resolve({ firstByteMs, doneMs, outcome: `http ${response.statusCode}: ${text.slice(0, 200)}` });
            return;
          }
          const last = text.lastIndexOf('"stage":"done"');
          const match = last >= 0 ? /"outcome":"([a-z_]+)"/.exec(text.slice(last)) : null;
          resolve({ firstByteMs, doneMs, outcome: match?.[1] ?? 'no done event', ...(keepText ? { text } : {}) });
        });
        response.on('error', fail);
      },
    );
    outgoing.on('error', fail);
    outgoing.end(payload);
  });
}
