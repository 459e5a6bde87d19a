import { describe, expect, it } from 'vitest';
import { readResponseStateSchema } from './response-state.js';
import { STAGE_NAMES, STAGES, stageRow, type Section, type StageRow } from './stages.js';

const rows = Object.entries(STAGES) as [string, StageRow][];

describe('the stage table', () => {
  it('names the stages the event schema allows, no more, no fewer', () => {
    const schema = readResponseStateSchema() as { properties: { metadata: { properties: { stage: { enum: string[] } } } } };
    expect([...STAGE_NAMES].sort()).toEqual([...schema.properties.metadata.properties.stage.enum].sort());
  });

  it('closes every section it opens; a span it starts, it ends', () => {
    const edges = (section: Section, edge: 'open' | 'close') => rows.filter(([, row]) => row.section?.name === section && row.section.edge === edge).map(([, row]) => row);
    const sections = new Set(rows.flatMap(([, row]) => (row.section ? [row.section.name] : [])));
    for (const section of sections) {
      const opens = edges(section, 'open');
      const closes = edges(section, 'close');
      expect(opens, section).toHaveLength(1);
      expect(closes.length, section).toBeGreaterThan(0);
      // An AG-UI step left open (the summary's) is closed by the translator before the answer's text message.
      if (opens[0]!.span) expect(closes.some((row) => row.span), `${section} span`).toBe(true);
      for (const row of closes) {
        if (row.step) expect(opens[0]!.step, `${section} step`).toBe(true);
        if (row.span) expect(opens[0]!.span, `${section} span`).toBe(true);
      }
    }
  });

  it('marks only what the user reads as the answer as not thinking', () => {
    expect(rows.filter(([, row]) => !row.isThinking).map(([stage]) => stage)).toEqual(['final', 'escalate', 'done']);
  });

  it('gives no row to a name outside the table', () => {
    expect(stageRow('toString')).toBeUndefined();
    expect(stageRow('agent_progress')).toBeUndefined();
    expect(stageRow('final')?.held).toBe('deltas');
  });
});
