/**
 * The output guard of user-facing text (OWASP LLM02 / LLM07): the prompt-leak
 * check (text copied from any system prompt is cut out) and the content guard
 * (agent ids become names, endpoint addresses and header values of the
 * registry are removed). The turn
 * runner applies it to every event's content and its streaming forms to
 * answer deltas and progress messages (the answer composer to model deltas
 * too), so a value split across pieces is caught before any part of it is
 * shown, and no piece carries part of a personal value.
 */
import { ANSWER_PROMPT_RULES } from './answers/answer-prompt.js';
import { VERIFY_PROMPT_RULES } from './verify/verify-prompt.js';
import { INTENT_PROMPT_RULES } from '../intent/index.js';
import { createContentGuard, disguisedAgentSecrets } from '../privacy/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { createPromptLeakCheck, DATA_BLOCK_RULES, type MessageStream, type PromptLeakCheck, type ShownMessage } from '../text/index.js';

/** The fixed texts of every system prompt the supervisor sends. */
export const SYSTEM_PROMPT_TEXTS: readonly string[] = [INTENT_PROMPT_RULES, ...ANSWER_PROMPT_RULES, VERIFY_PROMPT_RULES, DATA_BLOCK_RULES];

/** Guards user-facing text of one registry snapshot. */
export interface OutputGuard {
  /** The text with ids named, addresses and secrets removed and prompt text cut. */
  clean(text: string): string;
  /** True when the text carries system-prompt text. */
  leaksPrompt(text: string): boolean;
  /** Stream filter for model deltas; `leaked` turns true once prompt text was cut. */
  stream(): { push(delta: string): string; flush(): string; readonly leaked: boolean };
  /** Stream filter for messages shown one at a time (sub-agent progress); each shown message is cleaned whole. */
  messages<T>(): MessageStream<T>;
  /** The guard of one turn's answer as the user reads it composed: every agent's text and the answer, in order. */
  composition<T>(): AnswerComposition<T>;
}

/**
 * The answer as it is composed: each sub-agent's text and the summary, in the
 * order the user reads them. Each piece is already clean on its own; this
 * catches a secret whose first part ends one piece and whose rest starts the
 * next (agent A's last words and agent B's first, an agent's text and the
 * model's), by reading each piece after the tail of what went before it (as
 * long as the longest form of a secret, less one). A piece whose end could
 * begin a secret ({@link HOLD_FROM} characters of a form or more) waits whole
 * for the next piece: if that one completes the secret, the begun part and the
 * completing part are both replaced, so no part of it of that length is shown.
 * Each call returns the pieces that may be shown now, in order (0, 1 or 2).
 */
export interface AnswerComposition<T> {
  /** A sub-agent's text (a progress message, its result): it follows every piece so far. */
  agentText(text: string, tag: T): ShownMessage<T>[];
  /** A streamed piece of the answer: it follows every piece so far. */
  answerPiece(text: string, tag: T): ShownMessage<T>[];
  /** The complete answer: it takes the place of its streamed pieces, so it follows what went before them (never held). */
  completeAnswer(text: string, tag: T): ShownMessage<T>[];
  /** The held piece, as it is (nothing more will follow it: the turn ends). */
  flush(): ShownMessage<T>[];
}

/**
 * Shortest begun form a piece waits for (characters of the reading form). Shorter beginnings are shown: with
 * hundreds of forms over letters and digits, almost every piece ends in one or two characters that begin one.
 */
export const HOLD_FROM = 4;

const SECRET_REPLACEMENT = '[redacted]';

export interface OutputGuardOptions {
  /** Language of the neutral phrase for ids the model made up, and of the agent names that replace ids. */
  language?: 'zh' | 'en';
  /** Replace made-up `*_agent` ids too (model text). Default true. */
  inventedIds?: boolean;
  /** Prompt-leak check to use (default: one over `SYSTEM_PROMPT_TEXTS`). */
  leakCheck?: PromptLeakCheck;
}

/** Builds the guard of a snapshot (callers keep one leak check and pass it, as it only depends on constants). */
export function createOutputGuard(snapshot: RegistrySnapshot, options: OutputGuardOptions = {}): OutputGuard {
  const scrubber = createContentGuard(snapshot, {
    ...(options.inventedIds === false ? {} : { inventedIdsIn: options.language ?? 'zh' }),
    ...(options.language ? { namesIn: options.language } : {}),
  });
  const leakCheck = options.leakCheck ?? createSystemPromptLeakCheck();
  return {
    // Prompt text is cut first (it is looked for as the model wrote it); the scrubber's stream comes last,
    // as only it never cuts through a value the masking must see whole.
    clean: (text) => scrubber.scrub(leakCheck.redact(text)),
    leaksPrompt: (text) => leakCheck.leaks(text),
    stream() {
      const prompt = leakCheck.stream();
      const ids = scrubber.stream();
      return {
        push: (delta) => ids.push(prompt.push(delta)),
        flush: () => ids.push(prompt.flush()) + ids.flush(),
        get leaked() {
          return prompt.leaked;
        },
      };
    },
    messages<T>(): MessageStream<T> {
      const inner = scrubber.messages<T>();
      const redact = (shown: { text: string; tag: T }[]) => shown.map(({ text, tag }) => ({ text: leakCheck.redact(text), tag })).filter(({ text }) => text !== '');
      return {
        push: (message: string, tag: T) => redact(inner.push(message, tag)),
        flush: () => redact(inner.flush()),
      };
    },
    composition<T>(): AnswerComposition<T> {
      const secrets = disguisedAgentSecrets(snapshot);
      let before = '';
      // The tail the answer's streamed pieces followed: the complete answer follows it too.
      let beforeAnswer: string | undefined;
      // The last pieces, waiting whole while their end could begin a secret: from `openAt` of the first one, as
      // written (each later one lies wholly in that end, so together they are never longer than a form).
      let held: { text: string; tag: T }[] = [];
      let heldOpenAt = 0;
      let heldAnswer = false;
      const release = (covered: boolean, text: string): ShownMessage<T>[] => {
        const pieces = held;
        held = [];
        if (!covered) return pieces;
        // Where the secret the next piece completes begins in the held ones (their whole open end when it began earlier).
        const joined = pieces.map((piece) => piece.text).join('');
        const crossing = secrets.spans(joined + text).find((span) => span.start < joined.length && span.end > joined.length);
        let cut = Math.min(crossing?.start ?? heldOpenAt, heldOpenAt);
        return pieces.map(({ text: piece, tag }, index) => {
          const kept = piece.slice(0, Math.max(0, cut));
          cut -= piece.length;
          return { text: kept.length < piece.length ? `${kept}${index === 0 || kept.length > 0 ? SECRET_REPLACEMENT : ''}` : piece, tag };
        });
      };
      const follow = (text: string, from: string, tag: T, answer: boolean, mayHold = true): ShownMessage<T>[] => {
        let { covered, before: next, open, openAt } = secrets.follows(from, text);
        let shown = text;
        if (covered > 0) {
          shown = `${SECRET_REPLACEMENT}${text.slice(covered)}`;
          ({ before: next, open, openAt } = secrets.follows(from, shown));
        }
        before = next;
        const hold = mayHold && open >= HOLD_FROM;
        if (!hold && held.length === 0) return [{ text: shown, tag }];
        if (hold && covered === 0 && openAt < 0 && held.length > 0) {
          held.push({ text: shown, tag });
          return [];
        }
        const out = release(covered > 0, text);
        if (!hold) return [...out, { text: shown, tag }];
        held = [{ text: shown, tag }];
        heldOpenAt = Math.max(0, openAt);
        heldAnswer = answer;
        return out;
      };
      const flush = () => release(false, '');
      return {
        agentText: (text, tag) => follow(text, before, tag, false),
        answerPiece(text, tag) {
          beforeAnswer ??= before;
          return follow(text, before, tag, true);
        },
        completeAnswer(text, tag) {
          const from = beforeAnswer ?? before;
          beforeAnswer = undefined;
          // A held piece of the answer is not continued by the complete answer (it restarts it): it goes out as it is.
          const released = heldAnswer ? flush() : [];
          return [...released, ...follow(text, from, tag, true, false)];
        },
        flush,
      };
    },
  };
}

/** The prompt-leak check over every system prompt (build once per component and pass it in). */
export function createSystemPromptLeakCheck(): PromptLeakCheck {
  return createPromptLeakCheck(SYSTEM_PROMPT_TEXTS);
}
