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
import { createPromptLeakCheck, DATA_BLOCK_RULES, type MessageStream, type PromptLeakCheck } from '../text/index.js';

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
  composition(): AnswerComposition;
}

/**
 * The answer as it is composed: each sub-agent's text and the summary, in the
 * order the user reads them. Each piece is already clean on its own; this
 * catches a secret whose first part ends one piece and whose rest starts the
 * next (agent A's last words and agent B's first, an agent's text and the
 * model's), by reading each piece after the tail of what went before it (as
 * long as the longest form of a secret, less one). The part of the later piece
 * that completes a secret is replaced, so the pieces never spell it in order.
 */
export interface AnswerComposition {
  /** A sub-agent's text (a progress message, its result): it follows every piece so far. */
  agentText(text: string): string;
  /** A streamed piece of the answer: it follows every piece so far. */
  answerPiece(text: string): string;
  /** The complete answer: it takes the place of its streamed pieces, so it follows what went before them. */
  completeAnswer(text: string): string;
}

const SECRET_REPLACEMENT = '[redacted]';

export interface OutputGuardOptions {
  /** Language of the neutral phrase for ids the model made up. */
  language?: 'zh' | 'en';
  /** Replace made-up `*_agent` ids too (model text). Default true. */
  inventedIds?: boolean;
  /** Prompt-leak check to use (default: one over `SYSTEM_PROMPT_TEXTS`). */
  leakCheck?: PromptLeakCheck;
}

/** Builds the guard of a snapshot (callers keep one leak check and pass it, as it only depends on constants). */
export function createOutputGuard(snapshot: RegistrySnapshot, options: OutputGuardOptions = {}): OutputGuard {
  const scrubber = createContentGuard(snapshot, options.inventedIds === false ? {} : { inventedIdsIn: options.language ?? 'zh' });
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
    composition() {
      const secrets = disguisedAgentSecrets(snapshot);
      let before = '';
      // The tail the answer's streamed pieces followed: the complete answer follows it too.
      let beforeAnswer: string | undefined;
      const follow = (text: string, from: string): string => {
        const { covered, before: next } = secrets.follows(from, text);
        if (covered === 0) {
          before = next;
          return text;
        }
        const shown = `${SECRET_REPLACEMENT}${text.slice(covered)}`;
        before = secrets.follows(from, shown).before;
        return shown;
      };
      return {
        agentText: (text) => follow(text, before),
        answerPiece(text) {
          beforeAnswer ??= before;
          return follow(text, before);
        },
        completeAnswer(text) {
          const from = beforeAnswer ?? before;
          beforeAnswer = undefined;
          return follow(text, from);
        },
      };
    },
  };
}

/** The prompt-leak check over every system prompt (build once per component and pass it in). */
export function createSystemPromptLeakCheck(): PromptLeakCheck {
  return createPromptLeakCheck(SYSTEM_PROMPT_TEXTS);
}
