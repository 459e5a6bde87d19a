/**
 * A LangChain chat model over an OpenAI-compatible `/chat/completions`
 * endpoint (plain JSON, tool calls), for running `@langchain/langgraph-supervisor`
 * on the bench's fake model: the peer's own code paths (supervisor, ReAct
 * sub-agents, handoff tools) run unchanged; only the HTTP client is ours.
 */
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';

interface CallOptions extends BaseChatModelCallOptions {
  tools?: unknown[];
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function toWire(message: BaseMessage): Record<string, unknown> {
  const type = message.getType();
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  if (type === 'system') return { role: 'system', content };
  if (type === 'human') return { role: 'user', content };
  if (type === 'tool') return { role: 'tool', content, tool_call_id: (message as unknown as { tool_call_id: string }).tool_call_id };
  const calls = (message as AIMessage).tool_calls ?? [];
  return {
    role: 'assistant',
    content,
    ...(message.name ? { name: message.name } : {}),
    ...(calls.length > 0 ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } })) } : {}),
  };
}

export class OpenAiChatModel extends BaseChatModel<CallOptions> {
  constructor(private readonly endpoint: { baseUrl: string; model: string }) {
    super({});
  }

  _llmType(): string {
    return 'bench-openai';
  }

  override bindTools(tools: Parameters<NonNullable<BaseChatModel['bindTools']>>[0]) {
    return this.withConfig({ tools: tools.map((tool) => convertToOpenAITool(tool)) });
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const response = await fetch(`${this.endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: this.endpoint.model, messages: messages.map(toWire), ...(options.tools?.length ? { tools: options.tools } : {}) }),
      signal: options.signal,
    });
    if (!response.ok) throw new Error(`model call failed: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { choices: { message: { content: string | null; tool_calls?: WireToolCall[] } }[] };
    const reply = body.choices[0]!.message;
    const message = new AIMessage({
      content: reply.content ?? '',
      tool_calls: (reply.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, unknown>, type: 'tool_call' as const })),
    });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
