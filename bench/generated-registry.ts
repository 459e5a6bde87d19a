/**
 * What the bench generators (`synthetic-registry.ts`, `intent-dataset.ts`)
 * share: the registry file they write — one card per generated intent, each
 * with its own endpoint port on 127.0.0.1 (nothing listens there;
 * `switchboard eval` calls no sub-agent) — and the seeded random numbers that
 * make a registry and its eval set regenerable.
 */

/** One generated card. */
export interface GeneratedCard {
  id: string;
  name: string;
  description: string;
  keywords?: readonly string[];
  examples: readonly string[];
}

/** The YAML text of a registry holding `cards`, endpoints from `firstPort` up, under a `# comment` header line. */
export function registryYaml(header: string, cards: readonly GeneratedCard[], firstPort: number): string {
  const lines = [
    `# ${header}`,
    'version: 1',
    'agents:',
    ...cards.flatMap((card, index) => [
      `  - id: ${card.id}`,
      `    name: ${JSON.stringify(card.name)}`,
      `    description: ${JSON.stringify(card.description)}`,
      ...(card.keywords ? [`    keywords: ${JSON.stringify(card.keywords)}`] : []),
      `    examples: ${JSON.stringify(card.examples)}`,
      `    endpoint: { url: "http://127.0.0.1:${firstPort + index}/invoke", protocol: http-json }`,
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** The seeded generator the registries are drawn with (shared with the eval's linear baseline). */
export { createRandom } from '../src/util/seeded-random.js';
