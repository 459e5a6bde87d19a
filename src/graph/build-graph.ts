/**
 * Wires the supervisor graph. Only edges live here; each node is in its own
 * file under nodes/.
 *
 *   init → load_profile → control ─┬─ END (answered: cancel word, rejection, stale confirmation)
 *                   ├─ execute (confirmed side-effect tasks) ───────────────┐
 *                   └─ recognize_intent ─┬─ direct_answer → END             │
 *                                        ├─ escalate → END                  ▼
 *                                        └─ plan → fill_from_profile → semantic_check → recall_answer ─┬─ execute → verify → summarize ─┬─ END
 *                                                                                      └─ summarize (kept answer)     └─ escalate
 */
import { END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import type { AgentClient } from '../agents/types.js';
import type { IntentRecognizer } from '../intent/types.js';
import type { Logger } from '../logger.js';
import type { AnswerComposer } from './answers/types.js';
import { createDirectAnswerNode } from './nodes/direct-answer-node.js';
import { createEmotionScorer, type EmotionScorer } from '../escalation/emotion.js';
import type { TicketWebhook } from '../escalation/ticket-webhook.js';
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
import type { ProfileStore } from '../store/types.js';
import { createOfflineVerifier } from './verify/offline-verifier.js';
import type { Verifier } from './verify/types.js';
import type { Planner } from './planning/types.js';
import type { ResponseCache } from './caches/response-cache.js';
import { SupervisorStateAnnotation, type SupervisorState, type SupervisorUpdate } from './state.js';
import { turnContext, type NodeConfig } from './context.js';
import type { SemanticIndex } from '../embeddings/semantic-index.js';

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

/**
 * The flowchart above, in four steps for a business turn: straight runs are
 * one graph node each (`control` = init → load_profile → control, `plan` =
 * plan → fill_from_profile → semantic_check → recall_answer, `execute` =
 * execute → verify → summarize); every part keeps its own file and timing.
 */
export function buildSupervisorGraph(dependencies: SupervisorDependencies) {
  const summarize = timed('summarize', createSummarizeNode(dependencies));
  return new StateGraph(SupervisorStateAnnotation)
    .addNode(
      'control',
      inSequence(
        timed('init', createInitNode()),
        timed('load_profile', createLoadProfileNode(dependencies)),
        timed('control', createControlNode({ emotion: dependencies.emotion ?? createEmotionScorer() })),
      ),
    )
    .addNode('recognize_intent', timed('recognize_intent', createIntentNode(dependencies)))
    .addNode('direct_answer', timed('direct_answer', createDirectAnswerNode(dependencies)))
    .addNode('escalate', timed('escalate', createEscalateNode(dependencies)))
    .addNode(
      'plan',
      inSequence(
        timed('plan', createPlanNode(dependencies)),
        timed('fill_from_profile', createFillFromProfileNode()),
        timed('semantic_check', createSemanticCheckNode()),
        timed('recall_answer', createRecallAnswerNode(dependencies)),
      ),
    )
    .addNode(
      'execute',
      inSequence(
        timed('execute', createExecuteNode(dependencies)),
        timed('verify', createVerifyNode({ ...dependencies, verifier: dependencies.verifier ?? createOfflineVerifier() })),
        summarize,
      ),
    )
    .addNode('summarize', summarize)
    .addEdge(START, 'control')
    .addConditionalEdges('control', routeAfterControl, ['execute', 'recognize_intent', END])
    .addConditionalEdges('recognize_intent', routeAfterIntent, ['direct_answer', 'plan', 'escalate'])
    .addConditionalEdges('plan', routeAfterRecall, ['execute', 'summarize'])
    .addConditionalEdges('execute', routeAfterSummarize, ['escalate', END])
    .addConditionalEdges('summarize', routeAfterSummarize, ['escalate', END])
    .addEdge('direct_answer', END)
    .addEdge('escalate', END)
    .compile({ checkpointer: dependencies.checkpointer });
}

export type SupervisorGraph = ReturnType<typeof buildSupervisorGraph>;
