/**
 * Prompts of the answer calls: the final summary of a business turn and the
 * reply to a simple turn. They are built from plain, already user-facing
 * facts (service names, agent messages, reasons, missing items with example
 * values), so the model has nothing internal to leak.
 */
import type { ChatMessage } from '../../llm/types.js';

/** One completed task as the summary prompt shows it. */
export interface CompletedFact {
  service: string;
  message?: string;
  /** The agent's structured output as JSON text, already trimmed. */
  output?: string;
}

/** A task that did not run or did not complete, with a user-facing reason. */
export interface NotDoneFact {
  service: string;
  reason: string;
}

/** Information still needed from the user for one service. */
export interface NeededFact {
  service: string;
  /** `miss` (not given) or `invalid` (given but unusable). */
  type: 'miss' | 'invalid';
  items: { description: string; examples: string[] }[];
}

/** Everything the summary prompt is built from. */
export interface SummaryPromptInput {
  query: string;
  language: 'zh' | 'en';
  completed: readonly CompletedFact[];
  notDone: readonly NotDoneFact[];
  needed: readonly NeededFact[];
  /** Services waiting until the needed information is given. */
  waiting: readonly string[];
}

const LANGUAGE_NAMES = { zh: 'Chinese (简体中文)', en: 'English' } as const;

/** Messages of the final-answer call of a business turn. */
export function buildSummaryMessages(input: SummaryPromptInput): ChatMessage[] {
  const system = [
    'You write the final answer of a multi-service assistant to the user.',
    `Answer in ${LANGUAGE_NAMES[input.language]}, the user's language.`,
    'Use only the facts given. Present each completed result clearly and concisely (keep names, prices, times, booking numbers).',
    'For each service not completed, say so and why in a few words.',
    'If information is still needed, ask for exactly those items and show the example values.',
    'Never mention internal identifiers (ids, task ids, field names with underscores); call services by the names given.',
  ].join(' ');
  const lines: string[] = [`User request: ${input.query}`];
  if (input.completed.length > 0) {
    lines.push('\nCompleted:');
    for (const fact of input.completed) {
      lines.push(`[${fact.service}]`);
      if (fact.message) lines.push(`  message: ${fact.message}`);
      if (fact.output) lines.push(`  data: ${fact.output}`);
    }
  }
  if (input.notDone.length > 0) {
    lines.push('\nNot completed:');
    for (const fact of input.notDone) lines.push(`[${fact.service}] ${fact.reason}`);
  }
  if (input.needed.length > 0) {
    lines.push('\nInformation still needed from the user:');
    for (const fact of input.needed) {
      const items = fact.items.map((item) => (item.examples.length > 0 ? `${item.description} (e.g. ${item.examples.join(', ')})` : item.description));
      lines.push(`[${fact.service}] ${fact.type === 'invalid' ? 'given but not valid, ask again for' : 'missing'}: ${items.join('; ')}`);
    }
  }
  if (input.waiting.length > 0) lines.push(`\nWill run once that information is given: ${input.waiting.join(', ')}`);
  return [
    { role: 'system', content: system },
    { role: 'user', content: lines.join('\n') },
  ];
}

/** Everything the direct-answer prompt is built from. */
export interface DirectPromptInput {
  query: string;
  language: 'zh' | 'en';
  kind: string;
  /** Names and descriptions of what the assistant offers. */
  services: readonly { name: string; description: string }[];
  /** Last exchanges, oldest first. */
  history: readonly { query: string; answer: string }[];
}

/** Messages of the reply to a simple turn (greeting, thanks, out of scope, ...). */
export function buildDirectMessages(input: DirectPromptInput): ChatMessage[] {
  const services = input.services.map((service) => `- ${service.name}: ${service.description}`).join('\n');
  const system = [
    `You are a friendly multi-service assistant. Reply in ${LANGUAGE_NAMES[input.language]}, briefly.`,
    `The message was classified as: ${input.kind}.`,
    'For requests outside what you offer, say so politely and name what you can help with.',
    'For sensitive topics, decline gently. Never mention internal identifiers.',
    `You offer:\n${services || '(nothing at the moment)'}`,
  ].join('\n');
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (const turn of input.history) {
    messages.push({ role: 'user', content: turn.query });
    if (turn.answer) messages.push({ role: 'assistant', content: turn.answer });
  }
  messages.push({ role: 'user', content: input.query });
  return messages;
}
