/**
 * Template answers (no LLM): each completed task's result, the tasks that did
 * not run and why, and the information still needed with example values.
 */
import { type AgentCard, cardName } from '../../registry/index.js';
import { composeDirectAnswer } from '../../intent/index.js';
import {
  doneText,
  failureReasonText,
  keyWithExamplesText,
  type Language,
  missingReasonText,
  neededKeysLine,
  notCompletedLine,
  notDoneSection,
  nothingToDoText,
  needsMoreInformationText,
  refusedValueLine,
  severalValuesLine,
  runsAfterInformationLine,
  serviceQuestionLine,
  unansweredLine,
} from '../../i18n/index.js';
import type { TaskOutcome } from '../../planning/index.js';
import type { SemanticInfo } from '../../events/index.js';
import { serviceNames } from '../service-name.js';
import type { AnswerComposer, SummaryInput } from './types.js';
import { enumChoices, keyExamples } from './key-examples.js';

const MAX_ITEMS = 5;

/** Renders an agent's structured output as short readable lines (used when it sent no message). */
export function renderOutput(output: Record<string, unknown> | undefined): string[] {
  if (!output) return [];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(output)) {
    if (Array.isArray(value)) {
      for (const item of value.slice(0, MAX_ITEMS)) lines.push(`- ${renderValue(item)}`);
    } else if (value !== null && value !== undefined && value !== '') {
      lines.push(`${key}: ${renderValue(value)}`);
    }
  }
  return lines;
}

function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(renderValue).join(', ');
  return Object.values(value as Record<string, unknown>)
    .filter((part) => part !== null && part !== undefined && typeof part !== 'object')
    .map(String)
    .join(' · ');
}

/** "入住城市（例如：北京、上海、广州）" for each key still needed by one parked task. */
function neededKeys(info: SemanticInfo, card: AgentCard, now: Date, language: Language): string[] {
  return info.keys.map((key, index) => {
    const spec = card.requiredKeys.find((candidate) => candidate.key === key);
    return keyWithExamplesText(language, info.key_descriptions[index] || key, spec ? keyExamples(spec, card, now, language) : []);
  });
}

/** The entry with only `keys` (index-aligned arrays narrowed alike). */
function narrowInfo(info: SemanticInfo, keys: readonly string[]): SemanticInfo {
  const indexes = keys.map((key) => info.keys.indexOf(key));
  return {
    ...info,
    keys: [...keys],
    key_descriptions: indexes.map((index) => info.key_descriptions[index] ?? ''),
    fe_widgets_suggestion: indexes.map((index) => info.fe_widgets_suggestion[index] ?? ''),
    key_options: indexes.map((index) => info.key_options[index] ?? []),
  };
}

/** The offline summary of a business turn. */
export function composeSummary(input: SummaryInput): string {
  const { language, snapshot, outcomes, plan } = input;
  const nameOf = serviceNames(snapshot, language);
  const sections: string[] = [];

  const completed = plan.sub_tasks.filter((task) => outcomes[task.task_id]?.status === 'completed');
  for (const task of completed) {
    const outcome = outcomes[task.task_id]!;
    const body = outcome.message?.trim() || renderOutput(outcome.output).join('\n') || doneText(language);
    sections.push(`【${nameOf(task.assigned_agent)}】\n${body}`);
  }

  const notRun: string[] = [];
  for (const task of plan.sub_tasks) {
    const outcome: TaskOutcome | undefined = outcomes[task.task_id];
    const status = outcome?.status ?? task.status;
    if (status === 'failed' || status === 'skipped') {
      notRun.push(notCompletedLine(language, nameOf(task.assigned_agent), failureReasonText(language, outcome?.reason ?? 'agent_failed')));
    }
  }
  for (const item of input.verification?.sufficient === false ? input.verification.missing : []) {
    notRun.push(unansweredLine(language, item.agent_id ? nameOf(item.agent_id) : undefined, missingReasonText(language, item.reason)));
  }
  // The question of an agent that answered input_required, by agent id.
  const questionOf = new Map<string, string>();
  for (const task of plan.sub_tasks) {
    const outcome = outcomes[task.task_id];
    const question = outcome?.status === 'input_required' ? outcome.message?.trim() : undefined;
    if (question) questionOf.set(task.assigned_agent, question);
  }
  const needed = new Set<string>();
  for (const info of input.semanticInfo) {
    const card = snapshot.byId.get(info.sub_agent_id);
    if (!card) continue;
    // Keys the registry does not declare have no user-facing description: pass the agent's own question on.
    const undeclared = info.keys.some((key) => !card.requiredKeys.some((spec) => spec.key === key));
    const question = questionOf.get(card.id);
    if (undeclared && question) {
      notRun.push(serviceQuestionLine(language, cardName(card, language), question));
      needed.add(card.id);
      continue;
    }
    needed.add(card.id);
    const refused = info.type === 'invalid' ? input.refusedValues?.[card.id] ?? {} : {};
    const several = info.type === 'invalid' ? input.severalValues?.[card.id] ?? {} : {};
    const named = info.keys.filter((key) => refused[key] !== undefined || several[key] !== undefined);
    for (const key of named) {
      const given = several[key];
      if (given) {
        notRun.push(severalValuesLine(language, cardName(card, language), info.key_descriptions[info.keys.indexOf(key)] || key, given));
        continue;
      }
      const index = info.keys.indexOf(key);
      const spec = card.requiredKeys.find((candidate) => candidate.key === key);
      const choices = spec?.extract.type === 'enum' ? enumChoices(spec.extract.values, language) : [];
      const examples = spec ? keyExamples(spec, card, input.now, language) : [];
      notRun.push(refusedValueLine(language, cardName(card, language), refused[key]!, info.key_descriptions[index] || key, choices, examples));
    }
    const unnamed = named.length === 0 ? info : narrowInfo(info, info.keys.filter((key) => refused[key] === undefined));
    if (unnamed.keys.length === 0) continue;
    notRun.push(neededKeysLine(language, cardName(card, language), neededKeys(unnamed, card, input.now, language), info.type === 'invalid'));
  }
  for (const task of plan.sub_tasks) {
    const status = outcomes[task.task_id]?.status ?? task.status;
    if (status === 'parked' && !needed.has(task.assigned_agent)) notRun.push(runsAfterInformationLine(language, nameOf(task.assigned_agent)));
    // An agent that needs input without naming keys: pass its own question on.
    if (status === 'input_required' && !needed.has(task.assigned_agent)) {
      const question = outcomes[task.task_id]?.message?.trim() || needsMoreInformationText(language);
      notRun.push(serviceQuestionLine(language, nameOf(task.assigned_agent), question));
    }
  }
  if (notRun.length > 0) sections.push(notDoneSection(language, notRun));
  if (sections.length === 0) return nothingToDoText(language);
  return sections.join('\n\n');
}

/** Template answers for direct and business turns. */
export function createOfflineAnswers(): AnswerComposer {
  return {
    async direct(input) {
      return composeDirectAnswer(input.kind, input.snapshot, input.language, input.query);
    },
    async summarize(input) {
      return composeSummary(input);
    },
  };
}
