import { describe, expect, it } from 'vitest';
import { addExamples, insertionDiff } from './add-examples.js';

const REGISTRY = `# top comment
version: 1
agents:
  # the weather card
  - id: weather_agent
    name: Weather   # trailing comment
    examples:
      - "北京明天天气怎么样"    # quoted on purpose
      - will it rain
    keywords: [weather]
  - id: flow_agent
    name: Flow
    examples: [one, "two"]
  - id: empty_flow
    name: Empty
    examples: []
  - id: bare_agent
    name: Bare
    description: no examples yet

  - id: key_only
    name: Key only
    examples:
    keywords: [x]
`;

describe('addExamples', () => {
  it('inserts each example where the list ends and changes no other byte', () => {
    const result = addExamples(
      REGISTRY,
      new Map([
        ['weather_agent', ['明天出门要带伞吗', 'yes: "quoted" # not a comment']],
        ['flow_agent', ['three']],
        ['empty_flow', ['first']],
        ['bare_agent', ['hello there']],
        ['key_only', ['only one']],
      ]),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.text).toBe(`# top comment
version: 1
agents:
  # the weather card
  - id: weather_agent
    name: Weather   # trailing comment
    examples:
      - "北京明天天气怎么样"    # quoted on purpose
      - will it rain
      - 明天出门要带伞吗
      - 'yes: "quoted" # not a comment'
    keywords: [weather]
  - id: flow_agent
    name: Flow
    examples: [one, "two", "three"]
  - id: empty_flow
    name: Empty
    examples: ["first"]
  - id: bare_agent
    name: Bare
    description: no examples yet
    examples:
      - hello there

  - id: key_only
    name: Key only
    examples:
      - only one
    keywords: [x]
`);
    expect(result.added).toHaveLength(6);
  });

  it('skips an example the card already has and refuses an unknown agent', () => {
    const same = addExamples(REGISTRY, new Map([['weather_agent', ['will it rain']]]));
    expect(same).toEqual({ ok: true, text: REGISTRY, added: [], alreadyThere: [{ agent: 'weather_agent', example: 'will it rain' }] });
    expect(addExamples(REGISTRY, new Map([['nobody', ['x']]]))).toEqual({ ok: false, message: 'no agent "nobody" in the registry' });
    expect(addExamples('agents: [', new Map()).ok).toBe(false);
  });

  it('writes a message with a line break as one double-quoted line', () => {
    const result = addExamples(REGISTRY, new Map([['weather_agent', ['line one\nline two']]]));
    expect(result.ok && result.text).toContain('      - "line one\\nline two"\n    keywords: [weather]');
  });
});

describe('insertionDiff', () => {
  it('prints the inserted lines with their context as a unified diff', () => {
    const result = addExamples(REGISTRY, new Map([['weather_agent', ['new one']]]));
    if (!result.ok) throw new Error(result.message);
    expect(insertionDiff(REGISTRY, result.text, 'agents_config.yaml')).toBe(
      ['--- agents_config.yaml', '+++ agents_config.yaml', '@@ -8,4 +8,5 @@', '       - "北京明天天气怎么样"    # quoted on purpose', '       - will it rain', '+      - new one', '     keywords: [weather]', '   - id: flow_agent', ''].join('\n'),
    );
    expect(insertionDiff(REGISTRY, REGISTRY, 'f')).toBe('');
  });
});
