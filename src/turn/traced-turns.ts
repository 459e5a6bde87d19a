/**
 * A turn runner whose turns are traced (docs/api.md#streams-and-trace-context): the
 * turn's span from `start` to its `done` event, a span per stage read off the
 * turn's own events (intent, plan, verify, summarize), and the turn's work run
 * with its span current so sub-agent and model calls become its children.
 */
import type { OpenSpan, TurnTracing } from '../telemetry/index.js';
import { isAnswerDelta, outcomeOf, stageRow, type ResponseState, type Section } from '../events/index.js';
import type { StartedTurn, TurnRequest, TurnRunner } from './turn-types.js';

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
          // The open stage spans, by the section of the turn the stage table says they cover.
          const stages = new Map<Section, OpenSpan>();
          const onEvent = (event: ResponseState) => {
            observe(event);
            options.onEvent(event);
          };
          const observe = (event: ResponseState) => {
            const row = stageRow(event.metadata.stage);
            const section = row?.span ? row.section : undefined;
            if (section?.edge === 'open') {
              if (!stages.has(section.name)) stages.set(section.name, tracing.tracer.startSpan(`switchboard.stage.${section.name}`, { parent: turnSpan.context }));
              return;
            }
            if (isAnswerDelta(event)) return;
            if (section) {
              stages.get(section.name)?.end();
              stages.delete(section.name);
            }
            if (event.type === 'done') {
              for (const open of stages.values()) open.end();
              stages.clear();
              const outcome = outcomeOf(event);
              turnSpan.setAttributes({ 'switchboard.outcome': outcome, 'switchboard.turn_id': event.metadata.turn_id });
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
