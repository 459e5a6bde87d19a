/**
 * Every sentence the product says to end users, in Chinese and English. Code
 * elsewhere picks a text by language and passes in names and values; it does
 * not write user-facing sentences itself.
 */
export { type Bilingual, joinNames, type Language, quotedList, relatedServiceText, unknownServiceText } from './language.js';
export {
  agentDoneText,
  staleReplyText,
  agentFailedText,
  agentStartText,
  confirmedPlanStartText,
  failureReasonText,
  intentStartText,
  planStartText,
  replyReadText,
  summarizeStartText,
} from './progress-texts.js';
export {
  askAgainText,
  confirmationPromptText,
  confirmationSummaryText,
  dateLabelText,
  type NoticeKind,
  noticeText,
  nothingToCancelText,
  nothingToConfirmText,
  runningConfirmedText,
  unknownConfirmationText,
} from './notice-texts.js';
export { clarificationLabelText, clarificationQuestionText, clauseClarificationText, unknownChoiceText, unplacedPartText } from './clarification-texts.js';
export { missingReasonText, verifyDoneText, verifyStartText } from './verify-texts.js';
export {
  doneText,
  keyWithExamplesText,
  neededKeysLine,
  needsMoreInformationText,
  notCompletedLine,
  notDoneSection,
  nothingToDoText,
  refusedValueLine,
  severalValuesLine,
  runsAfterInformationLine,
  serviceQuestionLine,
  theResultsText,
  tomorrowText,
  unansweredLine,
} from './answer-texts.js';
export {
  abusiveText,
  capabilitiesText,
  farewellText,
  greetingText,
  howCanIHelpText,
  intentUnderstoodText,
  outOfScopeText,
  sensitiveText,
  type ServiceText,
  thanksText,
  transferText,
} from './direct-answer-texts.js';
export { type EscalationSummaryParts, escalationSummaryText, handoverText, type HandoverReason } from './escalation-texts.js';
export { type PlanOutline, planDescriptionText } from './plan-texts.js';
export { profileUsedText, profileValueText, type StopNoticeReason, turnFailedText, turnStoppedText } from './turn-texts.js';
export { CANCEL_WORDS, CORRECTION_CONNECTORS, NO_WORDS, POLITE_AFFIXES, YES_WORDS } from './reply-word-lists.js';
export { subtaskBudgetText, tokenBudgetText, turnTimeBudgetText } from './budget-texts.js';
