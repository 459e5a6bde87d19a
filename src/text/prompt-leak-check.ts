/**
 * Finds system-prompt text in user-facing text (OWASP LLM07, system prompt
 * leakage). A model talked into "repeat your instructions" copies its
 * prompt; that copy is found by fixed-length windows: every run of `window`
 * characters of a prompt text (compared case-insensitively, with whitespace
 * collapsed) is remembered, and any run of the output equal to one of them is
 * a leak. Runs shorter than a window (common phrases) never count.
 *
 * `redact` cuts the leaked spans out. The streaming form shows text as soon
 * as it cannot begin a leak: it holds back only from the first place in the
 * last window whose next few characters also occur in a prompt, so ordinary
 * answers flow with a few characters' delay and no leaked character is shown
 * before the leak is known.
 */

/** Finds and removes prompt text. */
export interface PromptLeakCheck {
  /** True when `text` holds a window of any prompt text. */
  leaks(text: string): boolean;
  /** `text` with every leaked span replaced by `…`. */
  redact(text: string): string;
  /** A stream filter: `push` returns what may be shown now, `flush` the rest; `leaked` says whether anything was cut. */
  stream(): { push(delta: string): string; flush(): string; readonly leaked: boolean };
}

/** What a leaked span is replaced with. */
export const LEAK_REPLACEMENT = '…';

const DEFAULT_WINDOW = 40;
/** Length of the short runs that decide whether text may begin a leak. */
const GRAM = 8;

/** Normalised text and, for each of its characters, the index of the character it came from. */
function normalise(text: string): { chars: string; origin: number[] } {
  let chars = '';
  const origin: number[] = [];
  let lastSpace = true;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (/\s/.test(character)) {
      if (lastSpace) continue;
      chars += ' ';
      origin.push(index);
      lastSpace = true;
      continue;
    }
    chars += character.toLowerCase();
    origin.push(index);
    lastSpace = false;
  }
  return { chars, origin };
}

/** Builds a check for the given prompt texts (only their fixed parts: rules, never user data). */
export function createPromptLeakCheck(promptTexts: readonly string[], options: { window?: number } = {}): PromptLeakCheck {
  const window = Math.max(16, options.window ?? DEFAULT_WINDOW);
  const windows = new Set<string>();
  const grams = new Set<string>();
  for (const text of promptTexts) {
    const { chars } = normalise(text);
    for (let start = 0; start + window <= chars.length; start += 1) windows.add(chars.slice(start, start + window));
    for (let start = 0; start + GRAM <= chars.length; start += 1) grams.add(chars.slice(start, start + GRAM));
  }

  /** Index in `text` from which it must be held back: the first place in its last window that may begin a leak. */
  const holdFrom = (text: string): number => {
    const { chars, origin } = normalise(text);
    if (chars.length <= GRAM) return 0;
    for (let start = Math.max(0, chars.length - window); start + GRAM <= chars.length; start += 1) {
      if (grams.has(chars.slice(start, start + GRAM))) return origin[start]!;
    }
    return origin[chars.length - GRAM]!;
  };

  /** Leaked spans of `text` as [start, end) in its own indices, merged. */
  const spans = (text: string): [number, number][] => {
    if (windows.size === 0 || text.length < window) return [];
    const { chars, origin } = normalise(text);
    const found: [number, number][] = [];
    for (let start = 0; start + window <= chars.length; start += 1) {
      if (!windows.has(chars.slice(start, start + window))) continue;
      const from = origin[start]!;
      const to = origin[start + window - 1]! + 1;
      const last = found.at(-1);
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else found.push([from, to]);
    }
    return found;
  };

  const redact = (text: string): string => {
    if (typeof text !== 'string') return '';
    const found = spans(text);
    if (found.length === 0) return text;
    let out = '';
    let position = 0;
    for (const [from, to] of found) {
      out += text.slice(position, from) + LEAK_REPLACEMENT;
      position = to;
    }
    return out + text.slice(position);
  };

  return {
    leaks: (text) => typeof text === 'string' && spans(text).length > 0,
    redact,
    stream() {
      let pending = '';
      let leaked = false;
      const release = (final: boolean): string => {
        const found = spans(pending);
        let out = '';
        let position = 0;
        let limit = final ? pending.length : holdFrom(pending);
        for (const [from, to] of found) {
          // A span reaching the end may still grow: it is judged later.
          if (!final && to >= pending.length) {
            limit = Math.min(limit, from);
            break;
          }
          leaked = true;
          out += pending.slice(position, from) + LEAK_REPLACEMENT;
          position = to;
        }
        const cut = Math.max(position, limit);
        out += pending.slice(position, cut);
        pending = pending.slice(cut);
        return out;
      };
      return {
        push(delta) {
          pending += typeof delta === 'string' ? delta : '';
          return release(false);
        },
        flush: () => release(true),
        get leaked() {
          return leaked;
        },
      };
    },
  };
}
