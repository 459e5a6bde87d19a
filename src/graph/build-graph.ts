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
}

type NodeFunction = (state: SupervisorState, config: NodeConfig) => Promise<SupervisorUpdate>;

/** Records the node's wall time in the turn context (per-node timings of the turn). */
function timed(name: string, node: NodeFunction): NodeFunction {
  return async (state, config) => {
    const started = performance.now();
    try {
      return await node(state, config);
    } finally {
      const timings = turnContext(config).timings;
      timings[name] = Math.round((timings[name] ?? 0) + performance.now() - started);
    }
  };
}

export function buildSupervisorGraph(dependencies: SupervisorDependencies) {
  return new StateGraph(SupervisorStateAnnotation)
    .addNode('init', timed('init', createInitNode()))
    .addNode('control', timed('control', createControlNode({ emotion: dependencies.emotion ?? createEmotionScorer() })))
    .addNode('load_profile', timed('load_profile', createLoadProfileNode(dependencies)))
    .addNode('fill_from_profile', timed('fill_from_profile', createFillFromProfileNode()))
    .addNode('recognize_intent', timed('recognize_intent', createIntentNode(dependencies)))
    .addNode('direct_answer', timed('direct_answer', createDirectAnswerNode(dependencies)))
    .addNode('escalate', timed('escalate', createEscalateNode(dependencies)))
    .addNode('plan', timed('plan', createPlanNode(dependencies)))
    .addNode('semantic_check', timed('semantic_check', createSemanticCheckNode()))
    .addNode('recall_answer', timed('recall_answer', createRecallAnswerNode(dependencies)))
    .addNode('execute', timed('execute', createExecuteNode(dependencies)))
    .addNode('verify', timed('verify', createVerifyNode({ ...dependencies, verifier: dependencies.verifier ?? createOfflineVerifier() })))
    .addNode('summarize', timed('summarize', createSummarizeNode(dependencies)))
    .addEdge(START, 'init')
    .addEdge('init', 'load_profile')
    .addEdge('load_profile', 'control')
    .addConditionalEdges('control', routeAfterControl, ['execute', 'recognize_intent', END])
    .addConditionalEdges('recognize_intent', routeAfterIntent, ['direct_answer', 'plan', 'escalate'])
    .addEdge('plan', 'fill_from_profile')
    .addEdge('fill_from_profile', 'semantic_check')
    .addEdge('semantic_check', 'recall_answer')
    .addConditionalEdges('recall_answer', routeAfterRecall, ['execute', 'summarize'])
    .addEdge('execute', 'verify')
    .addEdge('verify', 'summarize')
    .addConditionalEdges('summarize', routeAfterSummarize, ['escalate', END])
    .addEdge('direct_answer', END)
    .addEdge('escalate', END)
    .compile({ checkpointer: dependencies.checkpointer });
}

export type SupervisorGraph = ReturnType<typeof buildSupervisorGraph>;
