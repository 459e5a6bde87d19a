/**
 * What a clarification says (contract v4 "Clarification"): the question with
 * its numbered options, each option's label, and the reply to a choice that
 * matches no offered option.
 */
import type { Language } from './language.js';

/** One option's label: the service's name and a few words of what it does. */
export function clarificationLabelText(name: string, gist: string, language: Language): string {
  if (gist.trim() === '' || gist.trim().toLowerCase() === name.trim().toLowerCase()) return name;
  return language === 'zh' ? `${name}（${gist}）` : `${name} (${gist})`;
}

/** The question of a clarification, listing the labels in order. */
export function clarificationQuestionText(labels: readonly string[], language: Language): string {
  if (labels.length === 1) {
    return language === 'zh'
      ? `我不太确定是否理解对了。您是想办理「${labels[0]}」吗？回复“是”或“1”继续，或者换个说法告诉我您的需求。`
      : `I'm not quite sure I understood. Do you mean "${labels[0]}"? Reply "yes" or "1" to go on, or tell me in other words what you need.`;
  }
  const lines = labels.map((label, index) => `${index + 1}. ${label}`);
  return language === 'zh'
    ? `我不太确定您需要哪项服务，您是指：\n${lines.join('\n')}\n请回复序号或服务名称；都不是的话，换个说法告诉我您的需求。`
    : `I'm not sure which service you mean. Do you mean:\n${lines.join('\n')}\nReply with the number or the name; if it is none of these, tell me in other words what you need.`;
}

/**
 * The question about one part of a message that holds other requests too: the part is quoted, so the user
 * sees which words it is about while the other requests go on. Always numbered (a bare yes may be meant for a
 * held action of the same turn).
 */
export function clauseClarificationText(clause: string, labels: readonly string[], language: Language): string {
  const lines = labels.map((label, index) => `${index + 1}. ${label}`);
  return language === 'zh'
    ? `关于“${clause}”，我不太确定您需要哪项服务，您是指：\n${lines.join('\n')}\n请回复序号或服务名称；都不是的话，换个说法告诉我您的需求。`
    : `About "${clause}": I'm not sure which service you mean. Do you mean:\n${lines.join('\n')}\nReply with the number or the name; if it is none of these, tell me in other words what you need.`;
}

/** A part of a message that no service took and nothing was offered for: said, never dropped in silence. */
export function unplacedPartText(part: string, language: Language): string {
  return language === 'zh'
    ? `关于“${part}”，我没能确定您需要哪项服务，这部分没有办理；请换个说法再告诉我。`
    : `About "${part}": I could not tell which service that is, so nothing was done for it; please tell me again in other words.`;
}

/** A `choose` that names no option of the last clarification (answered, expired or forged). */
export function unknownChoiceText(language: Language): string {
  return language === 'zh' ? '这个选项已失效。如需办理，请重新告诉我您的需求。' : 'That option is no longer open. If you still need something, please tell me again.';
}
