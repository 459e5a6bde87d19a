/**
 * Whether a short message leans on the previous turn: "地址呢？", "那后天呢",
 * "and the day after?", "what about Shanghai?" name no service of their own,
 * so the supervisor keeps the previous turn's agents; "那边天气怎么样" names a
 * service but takes its place from the previous turn, so its values are read
 * with the previous request in view.
 *
 * Both rules read a query in normal form (`IntentInput.normalizedQuery`).
 */
const HAN = /\p{Script=Han}/gu;
const ZH_LEAD = /^(?:那|那么|那就|还有|换成|改成|换到|改到|如果|要是|再)/u;
const ZH_TAIL = /(?:呢|吗|么)\s*[?？!！。.]*$/u;
const EN_LEAD = /^(?:and|what about|how about|what if|same|also|then)\b/iu;
const EN_REFERENCE = /\b(?:it|its|there|that|that one|same)\b/iu;
const ZH_PLACE_REFERENCE = /那边|那里|那儿|当地|同一个地方|那个城市/u;
const EN_PLACE_REFERENCE = /\b(?:there|same city|same place)\b/iu;

/** Options of the follow-up rules. */
export interface FollowUpOptions {
  /** Most Chinese characters of a follow-up. Default 10. */
  maxHan?: number;
  /** Most Latin words of a follow-up. Default 7. */
  maxWords?: number;
}

/** True when `text` is a short message that only makes sense after the previous turn. */
export function isFollowUp(text: string, options: FollowUpOptions = {}): boolean {
  if (text.length === 0) return false;
  const han = (text.match(HAN) ?? []).length;
  const words = (text.match(/[A-Za-z]+/gu) ?? []).length;
  if (han > 0 && han >= words) return han <= (options.maxHan ?? 10) && (ZH_LEAD.test(text) || ZH_TAIL.test(text));
  if (words === 0 || words > (options.maxWords ?? 7)) return false;
  return EN_LEAD.test(text) || EN_REFERENCE.test(text) || /\?\s*$/u.test(text);
}

/** True when `text` points at the place (or thing) of the previous turn ("那边", "there"). */
export function refersToPreviousTurn(text: string): boolean {
  return ZH_PLACE_REFERENCE.test(text) || EN_PLACE_REFERENCE.test(text);
}
