/**
 * Texts of the final answer: the lines the offline answer writes itself
 * (results, what was not done and why, which information is still needed)
 * and the pieces both answer strategies share.
 */
import { joinNames, type Language } from './language.js';

/** The relative-date example offered for a missing date key, beside its ISO form. */
export function tomorrowText(language: Language): string {
  return language === 'zh' ? '明天' : 'tomorrow';
}

/** The body of a completed task that sent neither a message nor output. */
export function doneText(language: Language): string {
  return language === 'zh' ? '已完成。' : 'Done.';
}

/** What an unnamed verified result is called ("the results" of this turn). */
export function theResultsText(language: Language): string {
  return language === 'zh' ? '本次结果' : 'the results';
}

/** "入住城市（例如：北京、上海）": a needed key with example values. */
export function keyWithExamplesText(language: Language, description: string, examples: readonly string[]): string {
  if (examples.length === 0) return description;
  return language === 'zh' ? `${description}（例如：${joinNames(examples, language)}）` : `${description} (e.g. ${joinNames(examples, language)})`;
}

/** A task that failed or was skipped; `why` comes from `failureReasonText`. */
export function notCompletedLine(language: Language, service: string, why: string): string {
  return language === 'zh' ? `- ${service}：未能完成（${why}），请稍后再试。` : `- ${service}: not completed (${why}); please try again later.`;
}

/** A result the verify step found does not answer; `why` comes from `missingReasonText`; no service = the turn's results. */
export function unansweredLine(language: Language, service: string | undefined, why: string): string {
  if (language === 'zh') return `- ${service ?? theResultsText(language)}：${why}，未能回答您的问题`;
  return `- ${service ?? 'The results'}: ${why}, so this part is not answered`;
}

/** A service's own question for information it needs. */
export function serviceQuestionLine(language: Language, service: string, question: string): string {
  return language === 'zh' ? `- ${service}：${question}` : `- ${service}: ${question}`;
}

/** The question used when a service needs input but asked nothing. */
export function needsMoreInformationText(language: Language): string {
  return language === 'zh' ? '需要您补充更多信息' : 'needs more information from you';
}

/** Keys a service still needs (`keys` from {@link keyWithExamplesText}); `invalid` when given values failed validation. */
export function neededKeysLine(language: Language, service: string, keys: readonly string[], invalid: boolean): string {
  const list = joinNames(keys, language);
  if (language === 'zh') return `- ${service}：${invalid ? '请重新提供有效的' : '需要您补充'}${list}`;
  return `- ${service}: ${invalid ? 'please give a valid' : 'needs'} ${list}`;
}

/**
 * A value the user gave that a key refuses: an enum key names the value and the
 * allowed ones ("暂不支持 南京，可选：北京、上海…"), any other key names the value and
 * asks for a valid one (with examples).
 */
export function refusedValueLine(
  language: Language,
  service: string,
  value: string,
  description: string,
  choices: readonly string[],
  examples: readonly string[],
): string {
  if (choices.length > 0) {
    return language === 'zh'
      ? `- ${service}：暂不支持 ${value}，可选：${joinNames(choices, language)}`
      : `- ${service}: ${value} is not supported; choose one of: ${joinNames(choices, language)}`;
  }
  const again = keyWithExamplesText(language, '', examples);
  return language === 'zh' ? `- ${service}：${description}「${value}」无效，请重新提供${again}` : `- ${service}: "${value}" is not a valid ${description}; please give another${again}`;
}

/** A side effect given several values for a key it takes once: which one ("您提到了多个入住城市（北京、上海）…"). */
export function severalValuesLine(language: Language, service: string, description: string, values: readonly string[]): string {
  return language === 'zh'
    ? `- ${service}：您提到了多个${description}（${values.join('、')}），一次只能办理一个，请告诉我是哪一个`
    : `- ${service}: you named more than one ${description} (${values.join(', ')}); it is done one at a time — which one?`;
}

/** A task that waits for the information asked for above it. */
export function runsAfterInformationLine(language: Language, service: string): string {
  return language === 'zh' ? `- ${service}：将在上述信息补充后一并处理` : `- ${service}: will run once the information above is given`;
}

/** The "not done yet" section from its lines. */
export function notDoneSection(language: Language, lines: readonly string[]): string {
  return (language === 'zh' ? '以下任务暂未执行：\n' : 'Not done yet:\n') + lines.join('\n');
}

/** A business turn with nothing that could run. */
export function nothingToDoText(language: Language): string {
  return language === 'zh' ? '抱歉，本次没有可以执行的任务。' : 'Sorry, there was nothing I could do for this request.';
}
