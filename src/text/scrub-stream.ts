/**
 * The streaming form of the text scrubber (`id-scrubber.ts`). Streamed text
 * (the model's answer deltas, a sub-agent's progress messages) reaches the
 * client and the stored events one piece at a time, and every later check
 * works on one piece: a header secret, an agent id or a phone number split
 * across two pieces ("138" + "12345678") would pass the guard and land in
 * storage in two pieces the personal-data masking cannot recognise.
 *
 * So a stream holds back exactly the tail of what arrived that could still
 * grow into something that must be seen whole: a beginning of a term (of any
 * length), a match that reaches the end (it may still grow, or its word
 * boundary is not known yet), and the trailing part a pattern or a kept value
 * (a personal value, shown as it is and masked later) could still be
 * growing in. A cut never falls inside a match or a kept value. What goes out
 * is scrubbed; the pieces add up to the scrubbed whole text.
 *
 * Two readers, two forms:
 * - deltas (the answer): the reader appends them, so whatever is safe goes out
 *   at once and only the tail waits for the next delta;
 * - messages (progress): the reader shows one message at a time in place of
 *   the previous one, so a message that ends in a held tail waits whole for
 *   the next one and then goes out as it came, unless a value spans the two:
 *   only then does the part from the value's start move to the next message.
 *   A progress line may therefore show one message late, never cut; messages
 *   that wait together each go out under their own tag (a sub-agent's
 *   progress never becomes part of its result's text).
 */

/** A stretch `[start, end)` of a text and, for a match that is replaced, what shows instead. */
export interface ScrubSpan {
  start: number;
  end: number;
  replacement?: string;
}

/** What a stream asks of its scrubber about the text it holds. */
export interface StreamJudge {
  /** Matches to replace from `from` on, left to right and non-overlapping (indices in `text`). */
  matches(text: string, from: number): ScrubSpan[];
  /** Stretches that are shown as they are but must reach a reader whole (indices in `text`). */
  keptWhole(text: string): ScrubSpan[];
  /** Length of the longest tail of `text` that could still grow into a match or a kept value. */
  growingTail(text: string): number;
}

/** A filter of appended deltas: `push` returns what may be shown now, `flush` the rest at the end. */
export interface DeltaStream {
  push(delta: string): string;
  flush(): string;
}

/** One message that may be shown now, with the tag of the message it came in as. */
export interface ShownMessage<T> {
  text: string;
  tag: T;
}

/** A filter of whole messages: `push` returns the messages that may be shown now (0, 1 or 2), `flush` the held one. */
export interface MessageStream<T> {
  push(message: string, tag: T): ShownMessage<T>[];
  flush(): ShownMessage<T>[];
}

/** Characters of already shown text kept as context (word boundaries, look-behinds). */
const CONTEXT = 32;

interface Plan {
  /** Index in the held text up to which it may go out. */
  cut: number;
  /** Matches inside the held text (indices in it). */
  matches: ScrubSpan[];
  /** Stretches a cut may not fall into. */
  spans: ScrubSpan[];
}

/** The held text of one stream and how to judge it. */
function createHold(judge: StreamJudge) {
  let before = '';
  let pending = '';

  const plan = (final: boolean): Plan => {
    const text = before + pending;
    const offset = before.length;
    const shift = (span: ScrubSpan): ScrubSpan => ({ ...span, start: span.start - offset, end: span.end - offset });
    const matches = judge.matches(text, offset).map(shift);
    const spans = [...matches, ...judge.keptWhole(text).map(shift).filter((span) => span.start >= 0)];
    let cut = pending.length;
    if (!final) {
      cut -= Math.min(pending.length, judge.growingTail(text));
      const last = matches.at(-1);
      // A match reaching the end may still grow (a longer term, a word going on): it is judged later.
      if (last && last.end >= pending.length) cut = Math.min(cut, last.start);
    }
    return { cut: safePoint(cut, spans), matches, spans };
  };

  /** The held text from `from` to `to`, each match inside it replaced. */
  const render = (matches: readonly ScrubSpan[], from: number, to: number): string => {
    let out = '';
    let position = from;
    for (const match of matches) {
      if (match.start < from || match.end > to) continue;
      out += pending.slice(position, match.start) + (match.replacement ?? pending.slice(match.start, match.end));
      position = match.end;
    }
    return out + pending.slice(position, to);
  };

  /** Drops the first `count` characters of the held text (they went out). */
  const take = (count: number): void => {
    before = (before + pending.slice(0, count)).slice(-CONTEXT);
    pending = pending.slice(count);
  };

  return {
    get held() {
      return pending;
    },
    add(text: string) {
      pending += text;
    },
    plan,
    render,
    take,
  };
}

/** The latest index at or before `at` that is inside no span. */
function safePoint(at: number, spans: readonly ScrubSpan[]): number {
  let cut = at;
  for (let moved = true; moved; ) {
    moved = false;
    for (const span of spans) {
      if (span.start < cut && span.end > cut) {
        cut = span.start;
        moved = true;
      }
    }
  }
  return Math.max(0, cut);
}

/** Starts a stream of appended deltas (see the file header). */
export function createDeltaStream(judge: StreamJudge): DeltaStream {
  const hold = createHold(judge);
  const release = (final: boolean): string => {
    if (hold.held.length === 0) return '';
    const { cut, matches } = hold.plan(final);
    const out = hold.render(matches, 0, cut);
    hold.take(cut);
    return out;
  };
  return {
    push(delta) {
      if (typeof delta !== 'string' || delta.length === 0) return '';
      hold.add(delta);
      return release(false);
    },
    flush: () => release(true),
  };
}

/** Starts a stream of whole messages (see the file header). */
export function createMessageStream<T>(judge: StreamJudge): MessageStream<T> {
  const hold = createHold(judge);
  // The held messages in order: where each ends in the held text, and its tag. Each keeps its own tag however
  // long it waits, so a message never comes out under a later one's tag (a progress line as a result's text).
  let segments: { end: number; tag: T }[] = [];

  /** Gives the held text up to `upTo` (a safe point), message by message; a value spanning two goes with the later. */
  const release = (upTo: number, matches: readonly ScrubSpan[], spans: readonly ScrubSpan[]): ShownMessage<T>[] => {
    const shown: ShownMessage<T>[] = [];
    let from = 0;
    for (const segment of segments) {
      if (from >= upTo) break;
      const to = Math.min(Math.max(from, safePoint(segment.end, spans)), upTo);
      const text = hold.render(matches, from, to);
      if (text !== '') shown.push({ text, tag: segment.tag });
      from = to;
    }
    hold.take(upTo);
    segments = segments.filter((segment) => segment.end > upTo).map((segment) => ({ end: segment.end - upTo, tag: segment.tag }));
    return shown;
  };

  return {
    push(message, tag) {
      if (typeof message !== 'string' || message.length === 0) return [];
      hold.add(message);
      segments.push({ end: hold.held.length, tag });
      const { cut, matches, spans } = hold.plan(false);
      // Whole messages go out: up to the last one that ends by the cut, less a value that spans into the next.
      const lastWhole = segments.filter((segment) => segment.end <= cut).at(-1);
      return lastWhole ? release(safePoint(lastWhole.end, spans), matches, spans) : [];
    },
    flush() {
      if (hold.held.length === 0) return [];
      const { cut, matches, spans } = hold.plan(true);
      return release(cut, matches, spans);
    },
  };
}
