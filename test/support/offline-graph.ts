/** The supervisor graph as offline mode builds it, for turn tests. */
import { createAgentClient } from '../../src/agents/index.js';
import { createOfflineAnswers } from '../../src/graph/answers/offline-answers.js';
import { buildSupervisorGraph, type FlowchartEngine, type SupervisorDependencies, type SupervisorGraph } from '../../src/graph/build-graph.js';
import { createOfflinePlanner } from '../../src/planning/index.js';
import { createOfflineRecognizer } from '../../src/intent/index.js';
import { silentLogger } from '../../src/logger.js';

/** Offline recogniser, planner and answers, a real agent client and a silent logger; `overrides` replace any of them. */
export function buildOfflineGraph(checkpointer: SupervisorDependencies['checkpointer'], overrides: Partial<SupervisorDependencies> = {}, engine?: FlowchartEngine): SupervisorGraph {
  return buildSupervisorGraph({
    recognizer: createOfflineRecognizer(),
    planner: createOfflinePlanner(),
    agentClient: createAgentClient(),
    answers: createOfflineAnswers(),
    logger: silentLogger,
    checkpointer,
    ...overrides,
  }, { engine });
}
