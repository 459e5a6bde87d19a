/**
 * LLM mode from the environment (docs/api.md#environment). With no `LLM_MODEL` or no
 * `LLM_BASE_URL` the supervisor runs offline: the gateway is disabled and
 * every caller takes its offline path.
 */
import type { Logger } from '../logger.js';
import { isJsonMode } from './json-mode.js';
import { LlmCallError, LlmConfigError } from './llm-error.js';
import { createLlmGateway, type LlmGatewayOptions, type OpenAiCompatibleGateway } from './openai-gateway.js';
import type { LlmCallRecord, LlmGateway } from './types.js';

/** The gateway of offline mode: `enabled` is false and `complete` always rejects with `LlmCallError('disabled')`. */
export function createDisabledLlmGateway(reason = 'LLM mode is off'): LlmGateway {
  return {
    enabled: false,
    async complete(options) {
      const message = `LLM call "${options?.purpose ?? 'unknown'}" not made: ${reason}`;
      const record: LlmCallRecord = {
        purpose: typeof options?.purpose === 'string' ? options.purpose : 'unknown',
        model: '',
        tier: options?.tier === 'small' ? 'small' : 'main',
        promptTokens: 0,
        completionTokens: 0,
        latencyMs: 0,
        attempts: 0,
        ok: false,
        error: `disabled: ${reason}`,
      };
      options?.usage?.calls.push(record);
      throw new LlmCallError('disabled', message);
    },
  };
}

/**
 * Reads `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`, `LLM_SMALL_MODEL`,
 * `LLM_TIMEOUT_MS`, `LLM_MAX_RETRIES` and `LLM_JSON_MODE` (json_schema |
 * json_object | prompt). Returns a disabled gateway when the model or base URL
 * is unset; throws `LlmConfigError` naming the variable when a value is set
 * but unusable.
 */
export function createLlmGatewayFromEnv(
  env: Record<string, string | undefined> = process.env,
  logger: Logger,
  overrides: Partial<Omit<LlmGatewayOptions, 'baseUrl' | 'apiKey' | 'model' | 'smallModel' | 'logger'>> = {},
): LlmGateway | OpenAiCompatibleGateway {
  const baseUrl = env.LLM_BASE_URL?.trim();
  const model = env.LLM_MODEL?.trim();
  if (!baseUrl || !model) {
    const missing = [!model ? 'LLM_MODEL' : undefined, !baseUrl ? 'LLM_BASE_URL' : undefined].filter(Boolean).join(' and ');
    logger.info({ missing }, 'LLM mode off: offline matcher only');
    return createDisabledLlmGateway(`LLM mode is off (${missing} not set)`);
  }
  const jsonMode = env.LLM_JSON_MODE?.trim() || undefined;
  if (jsonMode !== undefined && !isJsonMode(jsonMode)) {
    throw new LlmConfigError(`LLM_JSON_MODE must be json_schema, json_object or prompt, got "${jsonMode}"`);
  }
  const gateway = createLlmGateway({
    baseUrl,
    apiKey: env.LLM_API_KEY?.trim() || undefined,
    model,
    smallModel: env.LLM_SMALL_MODEL?.trim() || undefined,
    timeoutMs: readInteger(env, 'LLM_TIMEOUT_MS', 1),
    maxRetries: readInteger(env, 'LLM_MAX_RETRIES', 0),
    jsonMode,
    logger,
    ...overrides,
  });
  logger.info({ baseUrl, model: gateway.models.main, smallModel: gateway.models.small, jsonMode: gateway.currentJsonMode() }, 'LLM mode on');
  return gateway;
}

function readInteger(env: Record<string, string | undefined>, name: string, minimum: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    throw new LlmConfigError(`${name} must be an integer ≥ ${minimum}, got "${raw}"`);
  }
  return value;
}
