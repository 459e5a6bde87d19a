/** Test-file setup of a scripted fake model server with a real gateway on it. */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

/**
 * For a test file: a fake server and a real gateway on it, started before all
 * tests and closed after; each test must use every reply it scripted.
 * Read `fake` and `gateway` inside tests (they exist once `beforeAll` ran).
 */
export function useFakeModelGateway(options: Partial<Parameters<typeof createLlmGateway>[0]> = {}): { readonly fake: FakeOpenAI; readonly gateway: OpenAiCompatibleGateway } {
  let fake: FakeOpenAI | undefined;
  let gateway: OpenAiCompatibleGateway | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, breaker: false, maxRetries: 0, ...options });
  });
  afterAll(async () => {
    gateway?.close();
    await fake?.close();
  });
  afterEach(() => fake?.assertComplete());
  return {
    get fake() {
      if (!fake) throw new Error('the fake model server is not started yet');
      return fake;
    },
    get gateway() {
      if (!gateway) throw new Error('the gateway is not created yet');
      return gateway;
    },
  };
}
