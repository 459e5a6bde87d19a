/**
 * A small Server-Sent Events parser (the WHATWG framing: `event:`, `data:`
 * lines joined by newlines, a blank line ends an event, `:` lines are
 * comments), fed with text pieces as they arrive. Enough to judge an agent's
 * stream without a dependency.
 */

/** One event as it arrived (`event` defaults to `message`). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** Returns a feeder: call it with each piece of text of the stream. */
export function createSseParser(onEvent: (event: SseEvent) => void): (text: string) => void {
  let buffer = '';
  let eventName = '';
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) onEvent({ event: eventName || 'message', data: data.join('\n') });
    eventName = '';
    data = [];
  };
  return (text) => {
    buffer += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) return;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === '') {
        dispatch();
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') eventName = value;
      else if (field === 'data') data.push(value);
    }
  };
}
