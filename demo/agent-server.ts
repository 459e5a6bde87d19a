/**
 * Serves one demo agent with the agent kit (`src/agent-kit`, what `switchboard/agent-kit` exports), exactly
 * as a sub-agent developer would: `POST /invoke` (JSON reply, or an event
 * stream for a streaming agent) and `GET /healthz`. The demo only adds an
 * optional latency and bearer token around the kit.
 */
import type { Server } from 'node:http';
import { createAgentServer as createKitServer } from '../src/agent-kit/index.js';
import type { DemoAgentDefinition } from './travel-agents.js';

/** How one demo agent server behaves. */
export interface AgentServerOptions {
  /** Extra delay of a reply; a streaming agent spreads it between its events. */
  latencyMs: number;
  /** When set, requests must carry `authorization: Bearer <token>`. */
  bearerToken?: string;
}

const MIN_EVENT_GAP_MS = 50;

/** Creates (does not start) the HTTP server of one demo agent. */
export function createAgentServer(agent: DemoAgentDefinition, options: AgentServerOptions): Server {
  return createKitServer({
    protocol: agent.streaming ? 'http-sse' : 'http-json',
    authorize: options.bearerToken ? (headers) => headers.authorization === `Bearer ${options.bearerToken}` : undefined,
    async handle(request, context) {
      if (!agent.streaming) {
        const reply = await agent.handle(request, { progress: async () => undefined });
        await pause(options.latencyMs);
        return reply;
      }
      // Two progress events then the result: spread the latency over the two gaps.
      const gap = Math.max(MIN_EVENT_GAP_MS, Math.round(options.latencyMs / 2));
      let sentProgress = 0;
      const reply = await agent.handle(request, {
        async progress(content) {
          if (sentProgress++ > 0) await pause(gap);
          await context.progress(content);
        },
      });
      if (sentProgress > 0) await pause(gap);
      return reply;
    },
  });
}

function pause(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
