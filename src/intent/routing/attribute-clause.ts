/**
 * Whether a clause holds a request of its own or only gives a value: read from
 * the clause's shape, never from which examples a registry happens to have.
 *
 * A clause is an attribute of a key when it is, in order:
 *   [a preposition] [a possessive] [a part of the key's label] [a copula] VALUE [a particle]
 * — "订单 A1001", "单号是 B2002", "原因是质量问题", "order A1001", "for order A1001",
 * "A1001" — where VALUE is what the key's own rule reads there and the label
 * part is a piece of the key's description in any language of the registry
 * ("订单" and "单号" of "订单号", "原因" of "退款原因", "order" of "order
 * number"). Anything else left over (a request verb such as "查一下", "的状态",
 * "到哪了") makes it a request. Keys read as free text never make a clause an
 * attribute: their rule takes any words.
 */
import type { SemanticKeySpec } from '../../registry/index.js';
import { extractOne } from '../../text/index.js';
import { readAsAnswer } from '../../planning/index.js';

/** A value a clause gives for a key, and which key. */
export interface AttributeReading {
  key: string;
  value: string | number;
}

const PREPOSITION = /^(?:(?:(?:for|of|on|about|regarding|with)(?![a-z])|关于|对于|针对)\s*)?(?:(?:(?:my|the|our|this|that)(?![a-z])|我的|我那个|那个|这个)\s*)?/iu;
/** A copula, or the words of a correction ("订单号改成 B2002", "order number should be B2002"). */
const COPULA = /\s*(?:是|为|:|：|=|#|改成|改为|换成|变成|改到|(?<![a-z])(?:is|was|should be|changed to|change to|to))\s*$/iu;
/** Words any id's label may end in ("单号码", "order no."). */
const ID_WORD = /\s*(?:号码|编号|号|(?<![a-z])(?:no\.?|number|id))$/iu;
const TRAILING = /^[\s\p{P}\p{S}]*(?:的|吧|呢|啊|呀|哦|了|please)?[\s\p{P}\p{S}]*$/iu;
const LEADING_PUNCTUATION = /^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu;

/**
 * The key of `specs` the clause only gives a value for (see the file header),
 * or undefined when the clause holds more than a key's label and its value.
 * `clause` is a clause of the turn's reading, in its normal form.
 */
export function readAttributeClause(clause: string, specs: readonly SemanticKeySpec[], now: Date): AttributeReading | undefined {
  const text = clause.trim();
  if (text.length === 0) return undefined;
  for (const spec of specs) {
    if (spec.extract.type === 'text') continue;
    const outcome = extractOne(text, spec.extract, now);
    // A pattern that needs its label right before the value reads "订单号是 A1001" only as an answer to that label.
    const found = outcome && 'value' in outcome ? outcome : answerOf(text, spec, now);
    if (!found) continue;
    const at = text.lastIndexOf(found.raw);
    if (at < 0) continue;
    if (!TRAILING.test(text.slice(at + found.raw.length))) continue;
    if (isLabelPart(text.slice(0, at), spec)) return { key: spec.key, value: found.value };
  }
  return undefined;
}

function answerOf(text: string, spec: SemanticKeySpec, now: Date): { value: string | number; raw: string } | undefined {
  // The words after the last copula or correction word are the answer itself ("订单号改成 B2002" → "B2002").
  const copula = [...text.matchAll(/是|为|:|：|改成|改为|换成|变成|改到|(?<![a-z])(?:is|be|to)(?![a-z])/giu)].pop();
  const rest = copula ? text.slice(copula.index + copula[0].length) : text;
  const value = readAsAnswer(rest, spec, now) ?? readAsAnswer(text, spec, now);
  return value === undefined ? undefined : { value, raw: String(value) };
}

/** True when `before` is empty or only a preposition, a possessive, a piece of the key's label and a copula. */
function isLabelPart(before: string, spec: SemanticKeySpec): boolean {
  let rest = before.replace(LEADING_PUNCTUATION, '');
  rest = rest.replace(PREPOSITION, '');
  for (let previous = ''; previous !== rest; ) {
    previous = rest;
    rest = rest.replace(COPULA, '').trim();
  }
  if (rest.length === 0) return true;
  const labels = [spec.description, ...Object.values(spec.descriptions ?? {}), spec.key.replace(/[_-]+/g, ' ')]
    .map((label) => label.normalize('NFKC').toLowerCase().trim())
    .filter((label) => label.length > 0);
  const piece = rest.toLowerCase().replace(/\s+/g, ' ');
  const stem = piece.replace(ID_WORD, '').trim();
  return labels.some((label) => labelHolds(label, piece) || stem.length === 0 || labelHolds(label, stem));
}

/**
 * A piece of a label: Chinese, two characters or more inside it ("单号" of "订单号"); Latin, whole words of it
 * ("order" of "order number").
 */
function labelHolds(label: string, piece: string): boolean {
  if (/^[a-z0-9 '-]+$/u.test(piece)) {
    const words = new Set(label.split(/[^a-z0-9]+/u).filter((word) => word.length > 0));
    return piece.split(' ').every((word) => words.has(word) || words.has(word.replace(/s$/u, '')));
  }
  return [...piece].length >= 2 && label.includes(piece);
}
