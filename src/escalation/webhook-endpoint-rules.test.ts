/**
 * The ticket webhook follows the endpoint rules of sub-agents: a redirect is
 * a failed delivery (never followed, never re-sent as GET), and a url that
 * points at a link-local / metadata / unique-local address is refused at
 * load unless `supervisor.allow_private_endpoints` is true.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import type { EscalationCard } from './escalation-card.js';
import { createTicketWebhook } from './ticket-webhook.js';
import { loadRegistryText } from '../registry/load-registry.js';
import { createConfigShapeValidator } from '../registry/config-schema.js';

const card = { reason: 'user_request', trace_id: 't-redirect' } as EscalationCard;

describe('ticket webhook endpoint rules', () => {
  it('treats a 302 as a failed delivery: one POST, no request to the redirect target', async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      request.resume();
      if (request.url === '/hook') response.writeHead(302, { location: '/elsewhere' }).end();
      else response.writeHead(200).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const webhook = createTicketWebhook({ logger: silentLogger, initialDelayMs: 1, maxDelayMs: 2 });
    try {
      webhook.send(url, card);
      await webhook.idle();
      expect(seen).toEqual(['POST /hook']);
    } finally {
      await webhook.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const registry = (supervisor: string) => `version: 1
supervisor:
${supervisor}  escalation:
    webhook_url: "http://169.254.169.254/latest/meta-data"
agents:
  - id: echo_agent
    name: 回声
    description: 回声 echo
    keywords: [echo]
    endpoint: { url: "http://127.0.0.1:9/invoke" }
`;

  it('refuses a metadata address at load unless private endpoints are allowed', () => {
    const shapeValidator = createConfigShapeValidator();
    const refused = loadRegistryText(registry(''), 'agents_config.yaml', { env: {}, shapeValidator });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues.map((issue) => issue.message).join('\n')).toMatch(/webhook url .*allow_private_endpoints/);
    const allowed = loadRegistryText(registry('  allow_private_endpoints: true\n'), 'agents_config.yaml', { env: {}, shapeValidator });
    expect(allowed.ok).toBe(true);
  });
});
