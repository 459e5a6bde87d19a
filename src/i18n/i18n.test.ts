import { describe, expect, it } from 'vitest';
import * as texts from './index.js';
import type { Language } from './index.js';

// Values passed in are Latin, so Chinese in an English text can only come from the text itself.
const names = ['Hotel', 'Weather'];
const SAMPLES: Record<string, (language: Language) => string> = {
  unknownServiceText: (language) => texts.unknownServiceText(language),
  relatedServiceText: (language) => texts.relatedServiceText(language),
  intentStartText: (language) => texts.intentStartText(language),
  planStartText: (language) => texts.planStartText(language),
  confirmedPlanStartText: (language) => texts.confirmedPlanStartText(language),
  summarizeStartText: (language) => texts.summarizeStartText(language, 2),
  agentStartText: (language) => texts.agentStartText(language, 'Hotel'),
  agentDoneText: (language) => texts.agentDoneText(language, 'Hotel'),
  agentFailedText: (language) => texts.agentFailedText(language, 'Hotel', texts.failureReasonText(language, 'timeout')),
  failureReasonText: (language) => texts.failureReasonText(language, 'no_such_code'),
  noticeText: (language) => ['expired', 'topicSwitch', 'cancelled', 'rejected', 'unavailable'].map((kind) => texts.noticeText(kind as texts.NoticeKind, names, language, 600)).join('\n'),
  nothingToCancelText: (language) => texts.nothingToCancelText(language),
  unknownConfirmationText: (language) => texts.unknownConfirmationText(language),
  askAgainText: (language) => texts.askAgainText(language),
  runningConfirmedText: (language) => texts.runningConfirmedText(names, language),
  confirmationPromptText: (language) => texts.confirmationPromptText(['Hotel: book'], language),
  confirmationSummaryText: (language) => texts.confirmationSummaryText(language, 'Hotel', 'book', [{ label: texts.dateLabelText(language), value: '2026-12-01' }]),
  verifyStartText: (language) => texts.verifyStartText(language),
  verifyDoneText: (language) => [texts.verifyDoneText(language, true, 0), texts.verifyDoneText(language, true, 1), texts.verifyDoneText(language, false, 0)].join('\n'),
  missingReasonText: (language) => (['empty', 'nothing_found', 'judged'] as const).map((reason) => texts.missingReasonText(language, reason)).join('\n'),
  doneText: (language) => texts.doneText(language),
  tomorrowText: (language) => texts.tomorrowText(language),
  theResultsText: (language) => texts.theResultsText(language),
  keyWithExamplesText: (language) => texts.keyWithExamplesText(language, 'city', names),
  notCompletedLine: (language) => texts.notCompletedLine(language, 'Hotel', 'x'),
  unansweredLine: (language) => texts.unansweredLine(language, undefined, 'x'),
  refusedValueLine: (language) => [texts.refusedValueLine(language, 'Hotel', 'Paris', 'city', names, []), texts.refusedValueLine(language, 'Hotel', 'x', 'date', [], ['2026-12-01'])].join('\n'),
  needsMoreInformationText: (language) => texts.needsMoreInformationText(language),
  neededKeysLine: (language) => [texts.neededKeysLine(language, 'Hotel', ['city'], false), texts.neededKeysLine(language, 'Hotel', ['city'], true)].join('\n'),
  severalValuesLine: (language) => texts.severalValuesLine(language, 'Hotel', 'city', ['Beijing', 'Shanghai']),
  runsAfterInformationLine: (language) => texts.runsAfterInformationLine(language, 'Hotel'),
  notDoneSection: (language) => texts.notDoneSection(language, ['- Hotel']),
  nothingToDoText: (language) => texts.nothingToDoText(language),
  greetingText: (language) => texts.greetingText(language, names),
  thanksText: (language) => texts.thanksText(language),
  farewellText: (language) => texts.farewellText(language),
  capabilitiesText: (language) => [texts.capabilitiesText(language, [{ name: 'Hotel', description: 'rooms' }]), texts.capabilitiesText(language, [])].join('\n'),
  outOfScopeText: (language) => [texts.outOfScopeText(language, names), texts.outOfScopeText(language, [])].join('\n'),
  sensitiveText: (language) => texts.sensitiveText(language),
  abusiveText: (language) => texts.abusiveText(language),
  transferText: (language) => texts.transferText(language),
  howCanIHelpText: (language) => texts.howCanIHelpText(language),
  intentUnderstoodText: (language) => [texts.intentUnderstoodText(language, names), texts.intentUnderstoodText(language, [])].join('\n'),
  handoverText: (language) => (['user_request', 'emotion', 'failures', 'verify_failed'] as const).map((reason) => texts.handoverText(reason, language)).join('\n'),
  escalationSummaryText: (language) =>
    texts.escalationSummaryText(language, { reason: 'emotion', emotionWords: ['angry'], query: 'hello', services: names, pending: [{ service: 'Hotel', missingKeys: ['city'] }], failed: ['Weather'] }),
  planDescriptionText: (language) =>
    texts.planDescriptionText(language, { first: names, then: [{ service: 'Taxi', after: ['Hotel'] }], needInformation: ['Taxi'], awaitConfirmation: ['Hotel'] }),
  profileUsedText: (language) => texts.profileUsedText(language, [{ description: 'city', value: 'Paris' }]),
  profileValueText: (language) => texts.profileValueText(language, [{ description: 'city', value: 'Paris' }]),
  turnStoppedText: (language) => (['server_shutdown', 'lease_lost', 'user_cancel'] as const).map((reason) => texts.turnStoppedText(reason, language)).join('\n'),
  turnFailedText: (language) => texts.turnFailedText(language),
  subtaskBudgetText: (language) => texts.subtaskBudgetText(3, names, language),
  turnTimeBudgetText: (language) => [texts.turnTimeBudgetText(1500, names, language), texts.turnTimeBudgetText(1500, [], language)].join('\n'),
  tokenBudgetText: (language) => texts.tokenBudgetText(language),
};

const HAN = /\p{Script=Han}/u;

describe('user-facing texts', () => {
  it.each(Object.entries(SAMPLES))('%s has a Chinese and an English wording', (_name, sample) => {
    const zh = sample('zh');
    const en = sample('en');
    expect(zh.trim()).not.toBe('');
    expect(en.trim()).not.toBe('');
    expect(zh).not.toBe(en);
    expect(zh).toMatch(HAN);
    expect(en).not.toMatch(HAN);
  });

  it('names are joined the way each language lists them', () => {
    expect(texts.joinNames(names, 'zh')).toBe('Hotel、Weather');
    expect(texts.joinNames(names, 'en')).toBe('Hotel, Weather');
    expect(texts.quotedList(['a', 'b', 'a'], 'zh')).toBe('「a」、「b」');
    expect(texts.quotedList(['a', 'b', 'a'], 'en')).toBe('a; b');
  });
});
