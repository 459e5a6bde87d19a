/**
 * The languages the product speaks to end users. A turn answers in the
 * language of the user's query (docs/api.md#conversation-rules).
 */

/** A language the product writes user-facing text in. */
export type Language = 'zh' | 'en';

/** One user-facing text in every language, built from the same arguments. */
export type Bilingual<Args extends unknown[] = []> = { readonly [L in Language]: (...args: Args) => string };

/** A list of names as one phrase: 「酒店服务」、「天气服务」 / Hotel booking, Weather. */
export function joinNames(names: readonly string[], language: Language): string {
  return language === 'zh' ? names.join('、') : names.join(', ');
}

/** Labels of tasks as one phrase, each once: 「订酒店」、「查天气」 / book a hotel; check the weather. */
export function quotedList(labels: readonly string[], language: Language): string {
  const unique = [...new Set(labels)];
  return language === 'zh' ? unique.map((text) => `「${text}」`).join('、') : unique.join('; ');
}

/** What a service is called when its card is gone (disabled or removed since). */
export function unknownServiceText(language: Language): string {
  return language === 'zh' ? '相关服务' : 'a service';
}

/** What an agent id the model made up is shown as, in model-written text. */
export function relatedServiceText(language: Language): string {
  return language === 'zh' ? '相关服务' : 'a related service';
}
