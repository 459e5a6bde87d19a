/**
 * The plan_done sentence: in which order the services will work, which need
 * more information and which wait for the user's confirmation.
 */
import { joinNames, type Language } from './language.js';

/** The plan in service names (in the turn's language). */
export interface PlanOutline {
  /** Services that start at once. */
  first: readonly string[];
  /** Services that start after others. */
  then: readonly { service: string; after: readonly string[] }[];
  /** Services parked for missing information. */
  needInformation: readonly string[];
  /** Services held for confirmation. */
  awaitConfirmation: readonly string[];
}

/** A user-facing sentence describing the plan's order of work ('' for an empty plan). */
export function planDescriptionText(language: Language, outline: PlanOutline): string {
  const zh = language === 'zh';
  const parts: string[] = [];
  if (outline.first.length > 1) parts.push(zh ? `同时为您处理${joinNames(outline.first, language)}` : `handle ${joinNames(outline.first, language)} in parallel`);
  else if (outline.first.length === 1) parts.push(zh ? `先为您处理${outline.first[0]}` : `first handle ${outline.first[0]}`);
  for (const { service, after } of outline.then) {
    const before = joinNames(after, language);
    parts.push(zh ? `${before}完成后再处理${service}` : `then ${service} once ${before} is done`);
  }
  let text = parts.length > 0 ? (zh ? `已为您制定执行方案：${parts.join('，')}。` : `Plan ready: ${parts.join('; ')}.`) : '';
  if (outline.needInformation.length > 0) {
    const names = joinNames([...new Set(outline.needInformation)], language);
    text += zh ? `${names}还需要您补充一些信息。` : ` ${names} needs a bit more information from you.`;
  }
  if (outline.awaitConfirmation.length > 0) {
    const names = joinNames([...new Set(outline.awaitConfirmation)], language);
    text += zh ? `${names}需要您确认后才会执行。` : ` ${names} will run only after you confirm.`;
  }
  return text.trim();
}
