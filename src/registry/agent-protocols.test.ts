import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_PROTOCOLS, DEFAULT_AGENT_PROTOCOL } from './agent-protocols.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/agents_config.schema.json', import.meta.url), 'utf8'));

/** Every `protocol` property of the schema, wherever it is declared. */
function protocolProperties(node: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(node)) for (const item of node) protocolProperties(item, found);
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    const properties = record.properties as Record<string, Record<string, unknown>> | undefined;
    if (properties?.protocol) found.push(properties.protocol);
    for (const value of Object.values(record)) protocolProperties(value, found);
  }
  return found;
}

describe('agent protocol list', () => {
  it('is the enum of every protocol property of the registry schema, in order, with the same default', () => {
    const declared = protocolProperties(schema);
    expect(declared.length).toBeGreaterThan(0);
    for (const property of declared) {
      expect(property.enum).toEqual([...AGENT_PROTOCOLS]);
      expect(property.default).toBe(DEFAULT_AGENT_PROTOCOL);
    }
  });

  it('has a default that is one of its entries', () => {
    expect(AGENT_PROTOCOLS).toContain(DEFAULT_AGENT_PROTOCOL);
  });
});
