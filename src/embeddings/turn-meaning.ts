/**
 * The meaning of one turn's message, read at most once. The turn's reading of
 * the message (`understanding/query-reading.ts`) gives the text; the first step that
 * needs its vector — the offline recogniser's fusion, the LLM recogniser's
 * card pre-selection, the answer cache's paraphrase look-up — starts the one
 * call to the embeddings endpoint, and every later step gets the same result
 * (or the same `undefined`: a failed or slow endpoint is not asked again in
 * that turn). A turn that needs no vector makes no call.
 *
 * It travels in the turn context, not in graph state: graph state is written
 * to the checkpointer, and the vector of a user's words stays in memory.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import type { QueryMeaning, SemanticIndex } from './semantic-index.js';

/** The turn's meaning, read on first use. */
export interface TurnMeaning {
  /** The text it is the meaning of (the normal form of the part of the message that routes). */
  readonly text: string;
  /** The vector and card scores; `undefined` when the endpoint could not give them in time. */
  read(): Promise<QueryMeaning | undefined>;
}

/** The meaning of `text` for this turn's `snapshot`, through `index`. */
export function createTurnMeaning(index: SemanticIndex, text: string, snapshot: RegistrySnapshot, signal?: AbortSignal): TurnMeaning {
  let reading: Promise<QueryMeaning | undefined> | undefined;
  return {
    text,
    read() {
      reading ??= index.read(text, snapshot, signal).catch(() => undefined);
      return reading;
    },
  };
}
