/**
 * Signs that a text tries to instruct the model that reads it (prompt
 * injection, OWASP LLM01): "ignore the previous instructions", a forged role
 * or block marker, a request for the system prompt, a demand to call another
 * service. A heuristic, used only to take authority away (a model's choices
 * that such text may have steered are not acted on); it never blocks or
 * changes what the user sees.
 */

const SIGNALS: readonly RegExp[] = [
  // English
  /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:instructions?|rules?|prompts?|guidelines?|directives?|constraints?|polic(?:y|ies))\b/i,
  /\b(?:system|developer|hidden|initial|original)\s+(?:prompt|message|instructions?)\b/i,
  /\byou\s+are\s+now\b|\bact\s+as\b|\bpretend\s+(?:to\s+be|you)\b|\bfrom\s+now\s+on\b|\bnew\s+instructions?\b/i,
  /\b(?:developer|debug|god|admin|jailbreak|dan)\s+mode\b|\bjailbreak\b/i,
  /\b(?:reveal|print|show|output|repeat|leak|dump|display)\b[^.\n]{0,40}\b(?:prompt|instructions?|api[\s_-]?keys?|tokens?|secrets?|headers?|credentials?|endpoints?|urls?)\b/i,
  /\b(?:call|invoke|contact|forward|send|route|dispatch)\b[^.\n]{0,40}\b(?:agents?|services?|tools?|endpoints?)\b/i,
  /\b(?:retry|re-?send|re-?run)\b[^.\n]{0,40}\b(?:task|agent|service)s?\b/i,
  /^\s*(?:system|assistant|developer)\s*[:：]/im,
  /\[\s*(?:system|inst|admin)\s*\]|<\|?\s*(?:system|im_start|im_end)\s*\|?>|<{3}|>{3}|#{2,}\s*(?:instruction|system)/i,
  // Chinese
  /(?:忽略|无视|忘记|忘掉|跳过|绕过|覆盖|不要理会|不用管)[^。\n]{0,20}(?:指令|指示|规则|设定|提示词?|要求|约束|限制|命令)/,
  /系统(?:提示词?|指令|设定|消息)|开发者(?:模式|指令)|越狱|管理员模式|调试模式|上帝模式/,
  /(?:你现在是|你现在扮演|从现在起|从现在开始|扮演|假装你是|新的指令|新指令)/,
  /(?:输出|打印|显示|泄露|透露|告诉我|给出|列出|复述|重复)[^。\n]{0,20}(?:提示词|指令|密钥|令牌|token|请求头|header|接口地址|地址|URL|url|端点|内部\s*id|智能体\s*id)/i,
  /(?:系统提示词|提示词|密钥|令牌|请求头|接口地址|内部地址|端点|内部\s*id|智能体\s*id)[^。\n]{0,20}(?:输出|打印|显示|泄露|透露|发给|告诉|给我|列出)/i,
  /(?:调用|转发|发送给|通知|联系|触发)[^。\n]{0,20}(?:智能体|代理|agent|服务|接口|工具)/i,
  /(?:重新|再次)(?:发送|执行|调用|运行)[^。\n]{0,20}(?:任务|智能体|服务)/,
];

/** True when the text carries any sign of trying to instruct a model. */
export function hasInjectionSignals(text: string): boolean {
  if (typeof text !== 'string' || text.length === 0) return false;
  return SIGNALS.some((signal) => signal.test(text));
}
