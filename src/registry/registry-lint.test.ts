import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRegistryText } from './load-registry.js';

const DEMO = readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8');
const SHOP = readFileSync(new URL('../../examples/ecommerce/agents_config.yaml', import.meta.url), 'utf8');
const GUIDE = readFileSync(new URL('../../docs/onboard-an-agent.md', import.meta.url), 'utf8');

/** The registry entry docs/onboard-an-agent.md tells a newcomer to add. */
function guideEntry(): string {
  const at = GUIDE.indexOf('  - id: my_hotel_agent');
  return GUIDE.slice(at, GUIDE.indexOf('```', at));
}

function load(text: string) {
  return loadRegistryText(text, 'agents_config.yaml', { env: {} });
}

const messages = (result: ReturnType<typeof load>) => result.warnings.map((warning) => `${warning.pointer}  ${warning.message}`);

describe('registry lint', () => {
  it('warns that the onboarding guide\'s card overlaps the demo hotel agent, naming what collides, and books without side_effects', () => {
    const withGuideCard = DEMO.replace(/\nagents:\n/, `\nagents:\n${guideEntry()}`);
    const result = load(withGuideCard);
    expect(result.ok).toBe(true);
    const lines = messages(result);
    const overlap = lines.find((line) => line.includes('overlaps'));
    expect(overlap).toMatch(/^\/agents\/1\/examples {2}agent "hotel_agent" overlaps "my_hotel_agent" \(\/agents\/0\): shared keywords "酒店", "hotel"; colliding examples "帮我订北京的酒店"/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^\/agents\/0\/examples {2}agent "my_hotel_agent" has examples that read like an action with side effects \("帮我订北京的酒店"\) but no "side_effects: true"/),
    );
    // Warnings, not errors: the registry still loads, and `validate` says where.
    expect(result.ok && result.warnings.every((warning) => warning.line > 0)).toBe(true);
  });

  it('finds no overlap in the shipped registries, and no unmarked action in the e-commerce one', () => {
    expect(messages(load(DEMO)).filter((line) => line.includes('overlaps'))).toEqual([]);
    expect(messages(load(SHOP))).toEqual([]);
  });

  it('finds near-identical examples, not only equal ones', () => {
    const text = DEMO.replace('      - 查一下明天从北京到上海的机票\n', '      - 查一下明天从北京到上海的机票\n      - 北京明天天气怎么样？\n');
    expect(messages(load(text))).toContainEqual(expect.stringContaining('agent "weather_agent" overlaps "flight_agent" (/agents/2): colliding examples "北京明天天气怎么样" ~ "北京明天天气怎么样？"'));
  });

  it('warns about a widgets key no agent declares, with the nearest declared key', () => {
    const text = DEMO.replace('  check_in_date: date_picker\n', '  check_in_date: date_picker\n  chek_in_date: date_picker\n');
    expect(messages(load(text))).toContainEqual(
      '/widgets/chek_in_date  widgets key "chek_in_date" is not a required_semantic_keys key of any agent (did you mean "check_in_date"?): its widget is never suggested',
    );
  });

  it('tells where a field written at the wrong level belongs', () => {
    const text = DEMO.replace('    side_effects: true        #', '    retries: 2\n    side_effects: true        #').replace('      retries: 1\n', '      retries: 1\n      cache_ttl_s: 30\n');
    const result = load(text);
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues.map((issue) => `${issue.pointer}  ${issue.message}`);
    expect(issues).toContain('/agents/0/retries  unknown property "retries" (did you mean "endpoint.retries"? "retries" is not allowed at this level)');
    expect(issues).toContain('/agents/0/endpoint/cache_ttl_s  unknown property "cache_ttl_s" (did you mean "/agents/0/cache_ttl_s"? "cache_ttl_s" is not allowed at this level)');
  });
});
