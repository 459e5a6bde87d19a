/**
 * A turn runner whose turns are traced (docs/api.md#streams-and-trace-context): the
 * turn's span from `start` to its `done` event, a span per stage read off the
 * turn's own events (intent, plan, verify, summarize), and the turn's work run
 * with its span current so sub-agent and model calls become its children.
 */
import type { OpenSpan } from '../telemetry/span-tracer.js';
import type { TurnTracing } from '../telemetry/turn-tracing.js';
import type { ResponseState } from '../graph/response-state.js';
import type { StartedTurn, TurnRequest, TurnRunner } from './turn-types.js';

/** Which event ends the stage a `*_start` event begins. */
const STAGE_ENDS: Readonly<Record<string, string>> = {
  intent_start: 'intent_done',
  plan_start: 'plan_done',
  verify_start: 'verify_done',
  summarize_start: 'final',
};

/**
 * A turn runner whose turns are traced: the turn's span from `start` to its
 * `done` event (outcome as an attribute), stage spans from the events, and the
 * turn's work run with its span current.
 */
export function traceTurns(runner: TurnRunner, tracing: TurnTracing): TurnRunner {
  return {
    start(request: TurnRequest, options): Promise<StartedTurn> {
      return tracing.runTurn(
        { traceId: request.traceId, parent: request.traceParent, attributes: { 'switchboard.trace_id': request.traceId, 'switchboard.session_id': request.sessionId } },
        async (turnSpan) => {
          const stages = new Map<string, OpenSpan>();
          const onEvent = (event: ResponseState) => {
            observe(event);
            options.onEvent(event);
          };
          const observe = (event: ResponseState) => {
            const stage = event.metadata.stage;
            const ends = STAGE_ENDS[stage];
            if (ends !== undefined && !stages.has(ends)) {
              stages.set(ends, tracing.tracer.startSpan(`switchboard.stage.${stage.replace(/_start$/, '')}`, { parent: turnSpan.context }));
              return;
            }
            if (stage === 'final' && event.metadata.state?.delta === true) return;
            stages.get(stage)?.end();
            stages.delete(stage);
            if (event.type === 'done') {
              for (const open of stages.values()) open.end();
              stages.clear();
              const outcome = event.metadata.state?.outcome;
              turnSpan.setAttributes({ 'switchboard.outcome': typeof outcome === 'string' ? outcome : undefined, 'switchboard.turn_id': event.metadata.turn_id });
              turnSpan.end(outcome === 'failed' ? 'the turn failed' : undefined);
            }
          };
          try {
            const started = await runner.start(request, { ...options, onEvent });
            turnSpan.setAttributes({ 'switchboard.session_id': started.sessionId, 'switchboard.turn_id': started.turnId });
            void started.done.then(
              () => turnSpan.end(),
              (error: unknown) => turnSpan.end(error instanceof Error ? error.message : String(error)),
            );
            return started;
          } catch (error) {
            turnSpan.end(error instanceof Error ? error.message : String(error));
            throw error;
          }
        },
      );
    },
    drain: (graceMs) => runner.drain(graceMs),
    get draining() {
      return runner.draining;
    },
    get activeTurns() {
      return runner.activeTurns;
    },
  };
}
