/**
 * Every sentence the product says to end users, in Chinese and English. Code
 * elsewhere picks a text by language and passes in names and values; it does
 * not write user-facing sentences itself.
 */
export { type Bilingual, joinNames, type Language, unknownServiceText } from './language.js';
export {
  agentDoneText,
  agentFailedText,
  agentStartText,
  confirmedPlanStartText,
  failureReasonText,
  intentStartText,
  planStartText,
  summarizeStartText,
} from './progress-texts.js';
export {
  askAgainText,
  confirmationPromptText,
  type NoticeKind,
  noticeText,
  nothingToCancelText,
  runningConfirmedText,
  unknownConfirmationText,
} from './notice-texts.js';
export { missingReasonText, verifyDoneText, verifyStartText } from './verify-texts.js';
export { tomorrowText } from './answer-texts.js';
