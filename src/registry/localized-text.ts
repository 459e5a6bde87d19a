/**
 * Agent names and descriptions, and semantic key descriptions, per language. The registry accepts a string or
 * a map by language (`name: { zh: 酒店服务, en: Hotel booking }`); a card keeps
 * one default text (Chinese first, then English, then the first given) plus the
 * map, and user-facing texts of a turn pick the turn's language from it.
 */

/** A registry text field as written: one string, or texts by language code. */
export type LocalizedField = string | Readonly<Record<string, string>>;

/** The default text and the per-language map (empty for a plain string). */
export function readLocalized(field: LocalizedField): { text: string; byLanguage: Readonly<Record<string, string>> } {
  if (typeof field === 'string') return { text: field, byLanguage: {} };
  const byLanguage = Object.freeze({ ...field });
  const text = byLanguage.zh ?? byLanguage.en ?? Object.values(byLanguage)[0] ?? '';
  return { text, byLanguage };
}

/** What a localized lookup needs of a card. */
export interface LocalizedCardText {
  readonly name: string;
  readonly description: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly descriptions?: Readonly<Record<string, string>>;
}

/** The card's name in `language`, else its default name. */
export function cardName(card: Pick<LocalizedCardText, 'name' | 'names'>, language: string): string {
  return card.names?.[language] ?? card.name;
}

/** The card's description in `language`, else its default description. */
export function cardDescription(card: Pick<LocalizedCardText, 'description' | 'descriptions'>, language: string): string {
  return card.descriptions?.[language] ?? card.description;
}

/** Every text of the card's name (default and each language), for matching. */
export function allNames(card: Pick<LocalizedCardText, 'name' | 'names'>): string[] {
  return [...new Set([card.name, ...Object.values(card.names ?? {})])];
}

/** A semantic key's description in `language`, else its default description. */
export function keyDescription(spec: { readonly description: string; readonly descriptions?: Readonly<Record<string, string>> }, language: string): string {
  return spec.descriptions?.[language] ?? spec.description;
}
