/**
 * Answers to turns that need no plan (a greeting, thanks, "what can you do",
 * out of scope, sensitive or abusive messages, a request for a human) and the
 * `intent_done` line naming the services a turn will use. `names` are card
 * names in the turn's language; agent ids never appear.
 */
import { joinNames, type Language } from './language.js';

/** A service as the capability list shows it. */
export interface ServiceText {
  name: string;
  description: string;
}

/** The services' names as one phrase, or a generic phrase when there are none. */
function services(names: readonly string[], language: Language): string {
  if (names.length === 0) return language === 'zh' ? '多种服务' : 'several services';
  return joinNames(names, language);
}

/** Answer to a greeting, naming what the product offers. */
export function greetingText(language: Language, names: readonly string[]): string {
  return language === 'zh'
    ? `您好！我是您的智能助手，可以为您提供${services(names, language)}。请问有什么可以帮您？`
    : `Hello! I'm your assistant. I can help with ${services(names, language)}. What can I do for you?`;
}

/** Answer to thanks. */
export function thanksText(language: Language): string {
  return language === 'zh' ? '不客气！还有其他需要随时告诉我。' : "You're welcome! Let me know if there's anything else.";
}

/** Answer to a goodbye. */
export function farewellText(language: Language): string {
  return language === 'zh' ? '再见！期待再次为您服务。' : 'Goodbye! Happy to help again any time.';
}

/** Answer to "what can you do": one line per service. */
export function capabilitiesText(language: Language, list: readonly ServiceText[]): string {
  if (list.length === 0) return language === 'zh' ? '目前暂时没有可用的服务，请稍后再试。' : 'No services are available right now. Please try again later.';
  const separator = language === 'zh' ? '：' : ': ';
  const lines = list.map((entry) => `- ${entry.name}${entry.description ? `${separator}${entry.description}` : ''}`);
  return language === 'zh'
    ? `我可以为您提供以下服务：\n${lines.join('\n')}\n请告诉我您需要什么。`
    : `Here is what I can help with:\n${lines.join('\n')}\nJust tell me what you need.`;
}

/** Answer to a request no service covers. */
export function outOfScopeText(language: Language, names: readonly string[]): string {
  if (names.length === 0) {
    return language === 'zh' ? '抱歉，这个问题超出了我目前的服务范围，当前也没有可用的服务。' : "Sorry, that's outside what I can help with, and no services are available right now.";
  }
  return language === 'zh'
    ? `抱歉，这个问题超出了我目前的服务范围。我可以为您提供：${services(names, language)}。`
    : `Sorry, that's outside what I can help with. I can help with: ${services(names, language)}.`;
}

/** Answer to a sensitive topic. */
export function sensitiveText(language: Language): string {
  return language === 'zh'
    ? '抱歉，这个话题我无法提供帮助。如果您正面临困难或危险，请及时联系身边的人或当地的紧急求助电话。'
    : "Sorry, I can't help with that topic. If you are in difficulty or danger, please reach out to someone near you or your local emergency number.";
}

/** Answer to an abusive message. */
export function abusiveText(language: Language): string {
  return language === 'zh' ? '我理解您可能有些着急。请文明交流，我会尽力为您提供帮助。' : "I understand you may be frustrated. Let's keep it respectful and I'll do my best to help.";
}

/** Answer to a request for a human, as the recogniser words it. */
export function transferText(language: Language): string {
  return language === 'zh' ? '好的，正在为您转接人工客服，请稍候。' : "Sure, I'm transferring you to a human agent. Please hold on.";
}

/** Answer when nothing more specific fits. */
export function howCanIHelpText(language: Language): string {
  return language === 'zh' ? '请问有什么可以帮您？' : 'How can I help you?';
}

/** The `intent_done` line: "明白了！我将为您处理：酒店服务、机场接送机服务。" */
export function intentUnderstoodText(language: Language, names: readonly string[]): string {
  if (names.length === 0) return language === 'zh' ? '明白了！正在为您处理。' : "Got it! I'm on it.";
  return language === 'zh' ? `明白了！我将为您处理：${joinNames(names, language)}。` : `Got it! I'll take care of: ${joinNames(names, language)}.`;
}
