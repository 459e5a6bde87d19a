/**
 * Texts of the final answer: the parts the offline answer writes itself and
 * the pieces both answer strategies share (example values for a missing key).
 */
import type { Language } from './language.js';

/** The relative-date example offered for a missing date key, beside its ISO form. */
export function tomorrowText(language: Language): string {
  return language === 'zh' ? '明天' : 'tomorrow';
}
