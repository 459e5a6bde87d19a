/**
 * A test server over a registry of answering fake agents (`startAnsweringAgents`), started before the
 * file's tests and closed after them: for scenario files whose agents only need to answer and be counted.
 */
import { afterAll, beforeAll } from 'vitest';
import { startAnsweringAgents, type AnsweringAgents, type FakeAgent } from './fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from './switchboard-harness.js';

export interface AnsweringBoard<Name extends string> {
  /** The running server (after `beforeAll`). */
  readonly board: TestSwitchboard;
  readonly agents: Record<Name, FakeAgent>;
  /** How many calls each agent has had so far. */
  calls(): Record<Name, number>;
}

/** Registers the file's `beforeAll` / `afterAll`: one answering agent per name, a server on `registry(urls)`. */
export function useAnsweringBoard<Name extends string>(names: readonly Name[], registry: (urls: Record<Name, string>) => string): AnsweringBoard<Name> {
  let fleet: AnsweringAgents<Name> | undefined;
  let board: TestSwitchboard | undefined;
  beforeAll(async () => {
    fleet = await startAnsweringAgents(names);
    board = await startTestSwitchboard({ registryYaml: registry(fleet.urls) });
  });
  afterAll(async () => {
    await board?.close();
    await fleet?.close();
  });
  return {
    get board() {
      return board!;
    },
    get agents() {
      return fleet!.agents;
    },
    calls: () => fleet!.calls(),
  };
}
