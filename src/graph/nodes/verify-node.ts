/**
 * The verify step (docs/api.md#model-replies, seed 002), between execution and the
 * answer. The rule check always runs; with a model, one call judges whether
 * the results answer the rewritten query when there is a doubt: the rule
 * check flagged a task or an output failed its output_schema
 * (`verify.judge: on_doubt`, the default, docs/api.md#model-replies), so a clean
 * multi-intent turn costs no extra call; with `judge: always`, also on every
 * turn of several tasks (a single task that passed the rule check and
 * completed is never judged). Up to `verify.max_retries` rounds re-send the named read-only
 * tasks with revised messages (never a side-effect task, never from the
 * response cache), each round checked by the rules only, so the judge is the
 * turn's one extra model call. Still insufficient: `verification` says what is
 * missing, the answer says so, and the turn counts as unresolved.
 *
 * verify_start / verify_done are emitted in LLM mode only (the stage table).
 */
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import type { SubTask, TaskOutcome } from '../../planning/index.js';
import type { SemanticInfo } from '../../events/index.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import { createTaskDispatch, type DispatchDependencies } from '../dispatch/task-dispatch.js';
import { ruleCheck, type InsufficientTask } from '../verify/rule-check.js';
import { screenRetries } from '../verify/retry-screen.js';
import type { Verification, Verifier, VerifyTaskView } from '../verify/types.js';
import { verifyDoneText, verifyStartText } from '../../i18n/index.js';

const MAX_OUTPUT_CHARS = 800;
const RETRYABLE_STATUSES = new Set(['completed', 'failed']);

export interface VerifyDependencies extends DispatchDependencies {
  verifier: Verifier;
}

export function createVerifyNode(dependencies: VerifyDependencies) {
  const dispatch = createTaskDispatch(dependencies);
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const path = [...state.execution_path, 'verify'];
    const plan = state.task_plan;
    const settings = context.snapshot.supervisor.verify;
    const ran = plan?.sub_tasks.filter((task) => state.task_results[task.task_id] && state.task_results[task.task_id]!.status !== 'parked') ?? [];
    if (!plan || !settings.enabled || ran.length === 0) return { verification: null, execution_path: path };

    const emit = eventWriter(config);
    const { snapshot, language } = context;
    const cardOf = (agentId: string) => snapshot.byId.get(agentId);
    const retryable = (task: SubTask, outcomes: Readonly<Record<string, TaskOutcome>>) =>
      cardOf(task.assigned_agent)?.sideEffects !== true && RETRYABLE_STATUSES.has(outcomes[task.task_id]?.status ?? '');
    const showStages = dependencies.verifier.usesModel;
    if (showStages) emit({ stage: 'verify_start', content: verifyStartText(language), agent_id: 'supervisor', is_thinking: true });

    let outcomes: Record<string, TaskOutcome> = { ...state.task_results };
    let missing = ruleCheck(plan.sub_tasks, outcomes, cardOf);
    const allCompleted = ran.every((task) => outcomes[task.task_id]?.status === 'completed');
    const schemaFailed = ran.some((task) => outcomes[task.task_id]?.status === 'failed' && outcomes[task.task_id]?.reason === 'output_schema');
    const doubt = missing.length > 0 || schemaFailed;
    const needsJudge =
      dependencies.verifier.usesModel && (settings.judge === 'always' ? !(missing.length === 0 && allCompleted && plan.sub_tasks.length === 1) : doubt);
    const verdict = needsJudge
      ? await dependencies.verifier.judge(
          { query: state.rewritten_query, language, tasks: ran.map((task) => taskView(task, outcomes, missing, retryable(task, outcomes), snapshot.byId.get(task.assigned_agent)?.name)) },
          context,
        )
      : undefined;

    const byId = new Map(plan.sub_tasks.map((task) => [task.task_id, task]));
    const asked = (verdict?.sufficient === false ? verdict.retry : [])
      .filter((item, index, all) => all.findIndex((other) => other.task_id === item.task_id) === index)
      .filter((item) => byId.has(item.task_id) && retryable(byId.get(item.task_id)!, outcomes));
    // Results are data: what they may have steered the judge into is screened (verify/retry-screen.ts).
    const screen = screenRetries({
      retries: asked,
      tasks: ran,
      outcomes,
      ruleFlagged: new Set(missing.map((item) => item.task_id)),
      userTexts: [state.query, state.rewritten_query],
      userWords: [state.query, ...state.memory.history.map((turn) => turn.query)],
      now: context.now,
    });
    if (screen.refused.length > 0) dependencies.logger.warn({ traceId: context.traceId, refused: screen.refused }, 'verify: retries refused; the results tried to steer the judge');
    // A judge that read instruction-like results is not acted on beyond what the rules found.
    const judgement = screen.tainted ? undefined : verdict;
    let retries = screen.allowed;
    const judgedMissing: InsufficientTask[] =
      judgement?.sufficient === false
        ? retries.filter((item) => !missing.some((found) => found.task_id === item.task_id)).map((item) => ({ task_id: item.task_id, agent_id: byId.get(item.task_id)!.assigned_agent, reason: 'judged', detail: judgement.reason }))
        : [];
    missing = [...missing, ...judgedMissing];
    let sufficient = missing.length === 0 && judgement?.sufficient !== false;
    const retried: string[] = [];
    const extraInfo: SemanticInfo[] = [];
    const run = dispatch({ state, context, emit, extraInfo });
    let rounds = 0;
    // Past the turn's deadline nothing is re-sent: the answer says what was not done instead.
    const outOfTime = () => context.budget?.deadline.aborted === true;
    while (!sufficient && retries.length > 0 && rounds < settings.maxRetries && !context.signal.aborted && !outOfTime()) {
      rounds += 1;
      const results = await Promise.all(
        retries.map((item) => {
          const task = byId.get(item.task_id)!;
          const upstream = task.dependencies.map((id) => outcomes[id]).filter((outcome): outcome is TaskOutcome => outcome?.status === 'completed');
          return run(task, upstream, { message: item.revised_message, bypassCache: true, requestTaskId: `${task.task_id}_verify_${rounds}` });
        }),
      );
      for (const outcome of results) outcomes = { ...outcomes, [outcome.task_id]: outcome };
      retried.push(...retries.map((item) => item.task_id).filter((id) => !retried.includes(id)));
      const ruleMissing = ruleCheck(plan.sub_tasks, outcomes, cardOf);
      const stillBad = new Set([...ruleMissing.map((item) => item.task_id), ...results.filter((outcome) => outcome.status !== 'completed').map((outcome) => outcome.task_id)]);
      missing = [...ruleMissing, ...judgedMissing.filter((item) => stillBad.has(item.task_id) && !ruleMissing.some((found) => found.task_id === item.task_id))];
      retries = retries.filter((item) => stillBad.has(item.task_id));
      sufficient = missing.length === 0 && ![...stillBad].some((id) => retried.includes(id));
    }
    if (!sufficient && missing.length === 0 && judgement?.sufficient === false) {
      // The judge found the results insufficient without naming a task it could re-send.
      missing = [{ task_id: '', agent_id: '', reason: 'judged', detail: judgement.reason }];
    }
    const verification: Verification = {
      sufficient,
      reason: judgement?.reason ?? (sufficient ? 'ok' : missing.map((item) => `${item.task_id}: ${item.reason}`).join('; ')),
      missing: sufficient ? [] : missing,
      retried,
      rounds,
      judged: judgement !== undefined,
    };
    if (showStages) {
      emit({
        stage: 'verify_done',
        content: verifyDoneText(language, sufficient, retried.length),
        agent_id: 'supervisor',
        is_thinking: true,
        state: { sufficient, judged: verification.judged, retried, rounds, ...(sufficient ? {} : { missing: verification.missing.map((item) => ({ task_id: item.task_id, reason: item.reason })) }) },
      });
    }
    return {
      verification,
      task_results: outcomes,
      ...(extraInfo.length > 0 ? { semantic_info: [...state.semantic_info, ...extraInfo] } : {}),
      execution_path: path,
    };
  };
}

function taskView(task: SubTask, outcomes: Readonly<Record<string, TaskOutcome>>, missing: readonly InsufficientTask[], retryable: boolean, service = 'a service'): VerifyTaskView {
  const outcome = outcomes[task.task_id];
  const output = outcome?.output ? JSON.stringify(outcome.output) : '';
  const rule = missing.find((item) => item.task_id === task.task_id)?.reason;
  return {
    task_id: task.task_id,
    service,
    status: outcome?.status ?? task.status,
    retryable,
    ...(outcome?.message?.trim() ? { message: outcome.message.trim() } : {}),
    ...(output ? { output: output.length > MAX_OUTPUT_CHARS ? `${output.slice(0, MAX_OUTPUT_CHARS)}…` : output } : {}),
    ...(rule ? { rule } : {}),
  };
}
