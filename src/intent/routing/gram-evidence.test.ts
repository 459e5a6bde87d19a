import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegistryFile } from '../../registry/index.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { createExampleRanker } from './example-ranker.js';
import { buildModel } from './ranker-model.js';
import { agreedCard, chosenCard } from './gram-evidence.js';
import type { ExampleScores } from './example-index.js';
import { readTurnQuery } from '../../understanding/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function sample(path: string): Promise<RegistrySnapshot> {
  const loaded = await loadRegistryFile(`${ROOT}${path}`, { env: {} });
  if (!loaded.ok) throw new Error(`${path} invalid`);
  return loaded.snapshot;
}

/** Example-model scores for three cards, as the ranker reads them. */
function scores(posterior: number[], strong: number[], familiar = 0.5): ExampleScores {
  const zeros = () => new Float64Array(posterior.length);
  return { score: zeros(), nearest: zeros(), centroid: zeros(), covered: zeros(), posterior: Float64Array.from(posterior), strong: Uint8Array.from(strong), familiar };
}

describe('the discriminative n-gram model beside the example model', () => {
  it('gives a similarity route to the example model\'s second card only when confident and as well supported by words', () => {
    const options = { confidence: 0.8 };
    expect(chosenCard(scores([0.7, 0.3, 0], [1, 1, 0]), Float64Array.from([0.1, 0.9, 0]), options)).toBe(1);
    // Not confident enough, fewer content words in common, or not among the example model's two most likely.
    expect(chosenCard(scores([0.7, 0.3, 0], [1, 1, 0]), Float64Array.from([0.3, 0.7, 0]), options)).toBe(0);
    expect(chosenCard(scores([0.7, 0.3, 0], [2, 1, 0]), Float64Array.from([0.1, 0.9, 0]), options)).toBe(0);
    expect(chosenCard(scores([0.6, 0.3, 0.1], [1, 1, 1]), Float64Array.from([0.05, 0.05, 0.9]), options)).toBe(0);
  });

  it('routes a request nothing else routes only when both models name the card and the words back it', () => {
    const options = { confidence: 0.8, minFamiliar: 0.2 };
    const never = () => false;
    expect(agreedCard(scores([0.9, 0.1, 0], [1, 0, 0]), Float64Array.from([0.9, 0.1, 0]), options, never)).toBe(0);
    expect(agreedCard(scores([0.1, 0.9, 0], [1, 0, 0]), Float64Array.from([0.9, 0.1, 0]), options, never)).toBeUndefined();
    expect(agreedCard(scores([0.9, 0.1, 0], [0, 0, 0]), Float64Array.from([0.9, 0.1, 0]), options, never)).toBeUndefined();
    expect(agreedCard(scores([0.9, 0.1, 0], [1, 0, 0], 0.1), Float64Array.from([0.9, 0.1, 0]), options, never)).toBeUndefined();
    expect(agreedCard(scores([0.9, 0.1, 0], [1, 0, 0]), Float64Array.from([0.9, 0.1, 0]), options, (card) => card === 0)).toBeUndefined();
  });

  describe('on the keyword-free assistant sample registry', () => {
    let snapshot: RegistrySnapshot;
    const ranker = createExampleRanker();
    const agentsOf = (query: string) => ranker.rank(readTurnQuery(query), snapshot).intents.map((intent) => intent.agentId);
    beforeAll(async () => {
      snapshot = await sample('examples/assistant/agents_config.yaml');
      ranker.prepare(snapshot);
    });

    it('calibrates how confident the model must be on the registry\'s held-out examples', () => {
      const model = buildModel(snapshot);
      expect(model.grams.heldOut.length).toBeGreaterThanOrEqual(8);
      expect(model.gramConfidence).toBeGreaterThanOrEqual(0.5);
      expect(model.gramConfidence).toBeLessThanOrEqual(0.9);
    });

    it('a booking told with the status card\'s noun goes to the booking card', () => {
      // The example model alone: the flight status card (more of its examples say "flight").
      expect(agentsOf('set me up on a flight to boise')).toEqual(['book_flight_agent']);
    });

    it('a request the out-of-scope gate leaves unrouted, which both models name, is routed', () => {
      expect(agentsOf('i want seats on an airline to austin')).toEqual(['book_flight_agent']);
    });

    it('still keeps out a question that only shares word pieces with a card', () => {
      expect(agentsOf('translate goodbye into spanish')).toEqual([]);
      expect(agentsOf('how do i change a bike chain')).toEqual([]);
    });
  });

  it('a stray character of a keyword ("烧烤店" beside 酒店) keeps the travel registry\'s hotel card out', async () => {
    const snapshot = await sample('agents_config.yaml');
    const model = buildModel(snapshot);
    const hotel = model.cards.findIndex((card) => card.id === 'hotel_agent');
    expect(model.keywordCharacters.strays('附近有什么好吃的烧烤店', hotel)).toBe(true);
    expect(model.keywordCharacters.strays('附近有什么好吃的', hotel)).toBe(false);
    const ranker = createExampleRanker();
    expect(ranker.rank(readTurnQuery('附近有什么好吃的烧烤店'), snapshot).intents).toEqual([]);
  });
});
