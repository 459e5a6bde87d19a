import { afterEach, describe, expect, it } from 'vitest';
import { startA2aPeer, type A2aPeer } from '../../test/support/a2a-peers.js';
import { cardUrlsOf, createA2aCardFetcher } from './a2a-cards.js';
import { loadRegistryText } from './load-registry.js';

const yamlFor = (url: string, extra = '') => `version: 1
agents:
  - id: weather_agent
    a2a_card: ${url}
${extra}`;

describe('a2a_card fetching', () => {
  const peers: A2aPeer[] = [];
  afterEach(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.close()));
  });

  it('reads the card urls of a registry text, ${VAR} resolved', () => {
    const text = 'version: 1\nsupervisor: { allow_private_endpoints: true }\nagents:\n  - id: a\n    a2a_card: ${CARD}\n  - id: b\n    name: b\n';
    expect(cardUrlsOf(text, { CARD: 'http://h/card.json' })).toEqual({ urls: ['http://h/card.json'], allowPrivate: true });
  });

  it('reuses a good card within the ttl, and falls back to it (with the reason) when a later fetch fails', async () => {
    const peer = await startA2aPeer();
    peers.push(peer);
    let clock = 0;
    const fetcher = createA2aCardFetcher({ ttlMs: 1000, now: () => clock });
    const first = await fetcher.resolveFor(yamlFor(peer.cardUrl), {});
    expect(first.get(peer.cardUrl)).toMatchObject({ ok: true, card: { name: 'Weather agent' } });
    await fetcher.resolveFor(yamlFor(peer.cardUrl), {});
    expect(peer.cardFetches).toBe(1);
    await peer.close();
    peers.length = 0;
    clock = 5000;
    const later = await fetcher.resolveFor(yamlFor(peer.cardUrl), {});
    expect(later.get(peer.cardUrl)).toMatchObject({ ok: true, card: { name: 'Weather agent' }, error: expect.stringMatching(/could not be fetched.*earlier/) });
  });

  it('a changed card gives a new snapshot version; the same card the same one', async () => {
    const peer = await startA2aPeer();
    const other = await startA2aPeer({ skill: { name: 'Forecast', description: 'Another text', examples: ['rain?'], tags: ['rain'] } });
    peers.push(peer, other);
    const fetcher = createA2aCardFetcher({ ttlMs: 0 });
    const load = async (url: string) => {
      const text = yamlFor(url);
      const result = loadRegistryText(text, 'f.yaml', { env: {}, a2aCards: await fetcher.resolveFor(text, {}) });
      if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('; '));
      return result.snapshot;
    };
    const one = await load(peer.cardUrl);
    const again = await load(peer.cardUrl);
    expect(again.version).toBe(one.version);
    expect(one.byId.get('weather_agent')).toMatchObject({ enabled: true, keywords: expect.arrayContaining(['weather']) });
    const changed = await load(other.cardUrl);
    expect(changed.version).not.toBe(one.version);
    expect(changed.byId.get('weather_agent')!.keywords).toEqual(expect.arrayContaining(['rain']));
  });

  it('loads without fetching: the agent is registered, not routable, and says why', () => {
    const result = loadRegistryText(yamlFor('http://127.0.0.1:9/card.json'), 'f.yaml', { env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.byId.get('weather_agent')).toMatchObject({ enabled: false, endpoint: { protocol: 'a2a' }, a2aCard: { error: expect.stringMatching(/not fetched/) } });
  });

  it('still requires name, description and endpoint of an agent without a2a_card', () => {
    const result = loadRegistryText('version: 1\nagents:\n  - id: plain\n    name: p\n', 'f.yaml', { env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.message)).toEqual(['missing required property "description"', 'missing required property "endpoint"']);
  });
});
