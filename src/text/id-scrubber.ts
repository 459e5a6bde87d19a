/**
 * Keeps internal agent ids out of user-facing model text: every id of the
 * snapshot is replaced by the agent's `name`, and any other snake_case word
 * ending in `_agent` (an id the model made up) by a neutral phrase.
 *
 * An id counts only as a whole word (not inside a longer identifier). The
 * streaming form holds back the last few characters of each delta until it
 * knows whether they start an id, so deltas shown to the user are already
 * clean and their concatenation equals the scrubbed whole text.
 */

/** Scrubs ids from complete texts and from streams of deltas. */
export interface IdScrubber {
  /** The text with every id replaced. */
  scrub(text: string): string;
  /** A stream filter: `push` returns what may be shown now, `flush` the rest at the end. */
  stream(): { push(delta: string): string; flush(): string };
}

const WORD = /[A-Za-z0-9_]/;
const INVENTED_ID = '[a-z][a-z0-9]*(?:_[a-z0-9]+)*_agent';

/** Builds a scrubber for the given `id → name` pairs; `language` picks the neutral phrase for unknown ids. */
export function createIdScrubber(cards: readonly { id: string; name: string }[], language: 'zh' | 'en' = 'zh'): IdScrubber {
  const names = new Map(cards.map((card) => [card.id, card.name]));
  const neutral = language === 'zh' ? '相关服务' : 'a related service';
  const alternatives = [...names.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  alternatives.push(INVENTED_ID);
  const pattern = new RegExp(`(?<![A-Za-z0-9_])(?:${alternatives.join('|')})(?![A-Za-z0-9_])`, 'g');
  // Longest text a held-back id may need before it can be judged (id + one lookahead character).
  const holdBack = Math.max(24, ...[...names.keys()].map((id) => id.length)) + 1;
  const replacement = (id: string) => names.get(id) ?? neutral;

  const scrub = (text: string): string => (typeof text === 'string' ? text.replace(pattern, replacement) : '');

  return {
    scrub,
    stream() {
      let pending = '';
      // Last character already shown, so a word boundary at the start of `pending` is judged correctly.
      let before = '';
      const emit = (upTo: number, final: boolean): string => {
        let out = '';
        let position = 0;
        const source = before + pending;
        const offset = before.length;
        pattern.lastIndex = 0;
        for (const match of source.matchAll(pattern)) {
          const start = match.index - offset;
          const end = start + match[0].length;
          if (start < 0) continue;
          if (!final && end >= pending.length) break;
          if (start >= upTo) break;
          out += pending.slice(position, start) + replacement(match[0]);
          position = end;
        }
        const cut = Math.max(position, upTo);
        out += pending.slice(position, cut);
        if (cut > 0) before = pending[cut - 1]!;
        pending = pending.slice(cut);
        return out;
      };
      return {
        push(delta) {
          pending += delta;
          const upTo = pending.length - holdBack;
          if (upTo <= 0) return '';
          // Never cut in the middle of a word: an id could start inside it.
          let safe = upTo;
          while (safe > 0 && WORD.test(pending[safe - 1]!) && WORD.test(pending[safe]!)) safe -= 1;
          return safe > 0 ? emit(safe, false) : '';
        },
        flush() {
          return emit(pending.length, true);
        },
      };
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
