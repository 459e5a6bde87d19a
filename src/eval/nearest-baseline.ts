/**
 * The peer `switchboard eval` measures the recogniser against: a trivial
 * nearest-example classifier given the same registry examples. Each example
 * and the query become word TF-IDF vectors (Latin words; Chinese characters and
 * character pairs), and the query goes to the card of its most similar
 * example. It always answers when any word is shared, never abstains on
 * distance, reads no keywords, descriptions or earlier turns: what a registry's
 * examples give without any modelling. The recogniser should beat it on top-1.
 */
import type { RegistrySnapshot } from '../registry/index.js';

/** Agent id of the nearest example, or undefined when the query shares no word with any example. */
export type NearestBaseline = (query: string) => string | undefined;

const TOKEN = /\p{Script=Han}+|[\p{L}\p{N}]+/gu;
const HAN = /^\p{Script=Han}/u;

function termsOf(text: string): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (term: string) => terms.set(term, (terms.get(term) ?? 0) + 1);
  for (const [token] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (!HAN.test(token)) {
      add(token);
      continue;
    }
    for (let index = 0; index < token.length; index += 1) {
      add(token[index]!);
      if (index + 1 < token.length) add(token.slice(index, index + 2));
    }
  }
  return terms;
}

/** Builds the baseline over the enabled cards' examples (an inverted index, so a query costs its terms' lists). */
export function buildNearestBaseline(snapshot: RegistrySnapshot): NearestBaseline {
  const examples = snapshot.enabledAgents.flatMap((card) => card.examples.map((text) => ({ agentId: card.id, terms: termsOf(text) })));
  const documentFrequency = new Map<string, number>();
  for (const example of examples) for (const term of example.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const idf = (term: string) => Math.log((examples.length + 1) / ((documentFrequency.get(term) ?? 0) + 1)) + 1;
  const weigh = (terms: Map<string, number>) => {
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [term, count] of terms) {
      const weight = count * idf(term);
      vector.set(term, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [term, weight] of vector) vector.set(term, weight / norm);
    return vector;
  };
  const postings = new Map<string, { example: number; weight: number }[]>();
  examples.forEach((example, index) => {
    for (const [term, weight] of weigh(example.terms)) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ example: index, weight });
    }
  });
  const dots = new Float64Array(examples.length);
  return (query) => {
    dots.fill(0);
    for (const [term, weight] of weigh(termsOf(query))) for (const entry of postings.get(term) ?? []) dots[entry.example]! += weight * entry.weight;
    let best = -1;
    for (let index = 0; index < dots.length; index += 1) if (dots[index]! > 0 && (best < 0 || dots[index]! > dots[best]!)) best = index;
    return best < 0 ? undefined : examples[best]!.agentId;
  };
}
