/**
 * The supervisor's flowchart: its steps and where each goes next. Each node
 * is in its own file under nodes/; `flowchart-runner.ts` runs the flowchart
 * (LangGraph's engine can run the same table, `engine: 'langgraph'`).
 *
 *   init → load_profile → control ─┬─ END (answered: cancel word, rejection, stale confirmation)
 *                   ├─ execute (confirmed side-effect tasks) ───────────────┐
 *                   └─ recognize_intent ─┬─ direct_answer → END             │
 *                                        ├─ escalate → END                  ▼
 *                                        └─ plan → fill_from_profile → semantic_check → recall_answer ─┬─ execute → verify → summarize ─┬─ END
 *                                                                                      └─ summarize (kept answer)     └─ escalate
 */
import { END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { compileFlowchart, FLOW_END, type Flowchart, type FlowRunOptions } from './flowchart-runner.js';
import type { AgentClient } from '../agents/index.js';
import type { IntentRecognizer } from '../intent/index.js';
import type { Logger } from '../logger.js';
import type { AnswerComposer } from './answers/types.js';
import { createDirectAnswerNode } from './nodes/direct-answer-node.js';
import { createEmotionScorer, type EmotionScorer, type TicketWebhook } from '../escalation/index.js';
import { createControlNode, routeAfterControl } from './nodes/control-node.js';
import { createEscalateNode } from './nodes/escalate-node.js';
import { createExecuteNode } from './nodes/execute-node.js';
import { createInitNode } from './nodes/init-node.js';
import { createIntentNode, routeAfterIntent } from './nodes/intent-node.js';
import { createPlanNode } from './nodes/plan-node.js';
import { createSemanticCheckNode } from './nodes/semantic-check-node.js';
import { createSummarizeNode, routeAfterSummarize } from './nodes/summarize-node.js';
import { createVerifyNode } from './nodes/verify-node.js';
import { createRecallAnswerNode, routeAfterRecall } from './nodes/recall-answer-node.js';
import type { AnswerCache } from './caches/answer-cache.js';
import { createFillFromProfileNode, createLoadProfileNode } from './nodes/profile-node.js';
import type { ProfileStore } from '../store/index.js';
import { createOfflineVerifier } from './verify/offline-verifier.js';
import type { Verifier } from './verify/types.js';
import type { Planner } from '../planning/index.js';
import type { ResponseCache } from './caches/response-cache.js';
import { SupervisorStateAnnotation, type SupervisorState, type SupervisorUpdate } from './state.js';
import { turnContext, type NodeConfig } from './context.js';
import type { SemanticIndex } from '../embeddings/index.js';

export interface SupervisorDependencies {
  recognizer: IntentRecognizer;
  planner: Planner;
  agentClient: AgentClient;
  answers: AnswerComposer;
  logger: Logger;
  checkpointer?: BaseCheckpointSaver;
  /** Scores negative emotion for the escalation trigger (default: built-in word lists). */
  emotion?: EmotionScorer;
  /** Delivers escalation cards to `supervisor.escalation.webhook_url`. */
  ticketWebhook?: TicketWebhook;
  onAgentCall?: (agentId: string, status: string, durationMs: number) => void;
  responseCache?: ResponseCache;
  /** Answers of hot questions (the semantic cache); none = every turn runs its plan. */
  answerCache?: AnswerCache;
  /** Judges the results after execution; default: the offline verifier (rule check only). */
  verifier?: Verifier;
  /** Long-term profile facts per user; none = no profile layer. */
  profiles?: ProfileStore;
  /**
   * Word meaning from the optional embeddings endpoint: each turn's message is embedded at most once, on
   * first use (`embeddings/turn-meaning.ts`), for the recognisers and the answer cache's paraphrase look-up.
   */
  semantic?: SemanticIndex;
}

type NodeFunction = (state: SupervisorState, config: NodeConfig) => Promise<SupervisorUpdate>;

/** Resolves on the next turn of the event loop (after pending I/O callbacks). */
const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Records the node's wall time in the turn context (per-node timings of the
 * turn). Each stage starts on a fresh turn of the event loop: the matcher and
 * SQLite are synchronous, so without it a turn would run from its start to its
 * first network call without letting other sessions' requests in or its own
 * first events leave.
 */
function timed(name: string, node: NodeFunction): NodeFunction {
  return async (state, config) => {
    await nextLoopTurn();
    const started = performance.now();
    try {
      return await node(state, config);
    } finally {
      const timings = turnContext(config).timings;
      timings[name] = Math.round((timings[name] ?? 0) + performance.now() - started);
    }
  };
}

/**
 * Runs a straight run of nodes (no branch between them) as one graph step:
 * each sees the state as the ones before it left it (every channel of the
 * state replaces its value), and the graph gets their updates merged. One
 * step instead of several saves the graph's per-step bookkeeping.
 */
function inSequence(...nodes: NodeFunction[]): NodeFunction {
  return async (state, config) => {
    let current = state;
    let merged: SupervisorUpdate = {};
    for (const node of nodes) {
      const update = await node(current, config);
      current = { ...current, ...update } as SupervisorState;
      merged = { ...merged, ...update };
    }
    return merged;
  };
}

/** Which engine runs the flowchart (decision 0030): our own runner by default, LangGraph's for comparison. */
export type FlowchartEngine = 'direct' | 'langgraph';

/** What the turn runner needs of the compiled flowchart: `streamMode: 'custom'` events of one turn. */
export interface SupervisorGraph {
  stream(input: SupervisorUpdate, options: FlowRunOptions & Record<string, unknown>): Promise<AsyncIterable<unknown>>;
}

/**
 * The flowchart above, in four steps for a business turn: straight runs are
 * one step each (`control` = init → load_profile → control, `plan` =
 * plan → fill_from_profile → semantic_check → recall_answer, `execute` =
 * execute → verify → summarize); every part keeps its own file and timing.
 */
export function supervisorFlowchart(dependencies: SupervisorDependencies): Flowchart<SupervisorState> {
  const summarize = timed('summarize', createSummarizeNode(dependencies));
  const end = () => FLOW_END;
  return {
    first: 'control',
    initial: initialState,
    // The init step resets every other channel at the start of a turn; the inputs come with each turn.
    kept: ['memory'],
    steps: {
      control: {
        run: inSequence(
          timed('init', createInitNode()),
          timed('load_profile', createLoadProfileNode(dependencies)),
          timed('control', createControlNode({ emotion: dependencies.emotion ?? createEmotionScorer() })),
        ),
        next: routeAfterControl,
      },
      recognize_intent: { run: timed('recognize_intent', createIntentNode(dependencies)), next: routeAfterIntent },
      direct_answer: { run: timed('direct_answer', createDirectAnswerNode(dependencies)), next: end },
      escalate: { run: timed('escalate', createEscalateNode(dependencies)), next: end },
      plan: {
        run: inSequence(
          timed('plan', createPlanNode(dependencies)),
          timed('fill_from_profile', createFillFromProfileNode()),
          timed('semantic_check', createSemanticCheckNode()),
          timed('recall_answer', createRecallAnswerNode(dependencies)),
        ),
        next: routeAfterRecall,
      },
      execute: {
        run: inSequence(
          timed('execute', createExecuteNode(dependencies)),
          timed('verify', createVerifyNode({ ...dependencies, verifier: dependencies.verifier ?? createOfflineVerifier() })),
          summarize,
        ),
        next: routeAfterSummarize,
      },
      summarize: { run: summarize, next: routeAfterSummarize },
    },
  } as Flowchart<SupervisorState>;
}

/** Where each step may go next (LangGraph needs the targets of a conditional edge up front). */
const TARGETS: Record<string, string[]> = {
  control: ['execute', 'recognize_intent', END],
  recognize_intent: ['direct_answer', 'plan', 'escalate'],
  plan: ['execute', 'summarize'],
  execute: ['escalate', END],
  summarize: ['escalate', END],
  direct_answer: [END],
  escalate: [END],
};

/** The supervisor's flowchart, compiled for the chosen engine (default: the direct runner). */
export function buildSupervisorGraph(dependencies: SupervisorDependencies, options: { engine?: FlowchartEngine } = {}): SupervisorGraph {
  const flowchart = supervisorFlowchart(dependencies);
  if ((options.engine ?? 'direct') === 'direct') return compileFlowchart(flowchart, dependencies.checkpointer) as SupervisorGraph;
  const graph = new StateGraph(SupervisorStateAnnotation) as unknown as {
    addNode(name: string, run: NodeFunction): unknown;
    addEdge(from: string, to: string): unknown;
    addConditionalEdges(from: string, route: (state: SupervisorState, config: NodeConfig) => string, targets: string[]): unknown;
    compile(options: { checkpointer?: BaseCheckpointSaver }): SupervisorGraph;
  };
  for (const [name, step] of Object.entries(flowchart.steps)) graph.addNode(name, step.run as NodeFunction);
  graph.addEdge(START, flowchart.first);
  for (const [name, step] of Object.entries(flowchart.steps)) {
    const targets = TARGETS[name]!;
    if (targets.length === 1) graph.addEdge(name, targets[0]!);
    else graph.addConditionalEdges(name, step.next, targets);
  }
  return graph.compile({ checkpointer: dependencies.checkpointer });
}

/** Every channel at its default: the state of a session with nothing saved. */
function initialState(): SupervisorState {
  // Every channel is a "replace" channel with a default (`state.ts`): its factory gives the value.
  const channels = Object.entries(SupervisorStateAnnotation.spec) as unknown as [string, { initialValueFactory: () => unknown }][];
  return Object.fromEntries(channels.map(([channel, spec]) => [channel, spec.initialValueFactory()])) as SupervisorState;
}
