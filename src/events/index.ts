/**
 * The events room: what a turn says to the outside. The `ResponseState` event type and its
 * schema file, the one table of stages (what opens and closes what, what is held, the AG-UI
 * step and the trace span of each), and the readers every consumer of a turn's events uses.
 * Other rooms import these names from this file only.
 */
export { readResponseStateSchema, type Clarification, type ClarificationOption, type ConfirmationRequest, type ResponseState, type SemanticInfo } from './response-state.js';
export { STAGE_NAMES, STAGES, stageRow, type Held, type Section, type Speaker, type Stage, type StageRow } from './stages.js';
export { serialiseEvent, serialisedEvent } from './serialised.js';
export { answerOf, completeFinalOf, doneOf, isAnswerDelta, isCompleteFinal, outcomeOf, type StagedEvent } from './readers.js';
