/**
 * Multi-intent turns read best in the order the user asked: intents whose
 * clause appears earlier in the text come first; intents without a known
 * clause keep their rank order after them.
 */

/** Orders items by where their `clause` first appears in `text`; unknown clauses keep their order after the rest. */
export function orderByMention<T extends { clause?: string }>(intents: readonly T[], text: string): T[] {
  const mentionedAt = (intent: T) => {
    const index = intent.clause ? text.indexOf(intent.clause) : -1;
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  return intents
    .map((intent, rank) => ({ intent, rank, at: mentionedAt(intent) }))
    .sort((left, right) => left.at - right.at || left.rank - right.rank)
    .map((entry) => entry.intent);
}
