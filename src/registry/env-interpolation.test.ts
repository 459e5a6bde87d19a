import { describe, expect, it } from 'vitest';
import { interpolateEnv } from './env-interpolation.js';
import { formatIssue, loadRegistryText } from './load-registry.js';
import { toPublicCard } from './public-card.js';

describe('interpolateEnv', () => {
  it('replaces ${VAR} from the record', () => {
    expect(interpolateEnv('Bearer ${TOKEN}', { TOKEN: 'abc' })).toEqual({ ok: true, value: 'Bearer abc', variables: ['TOKEN'] });
  });

  it('uses the default of ${VAR:-default} when unset or empty, like a shell', () => {
    expect(interpolateEnv('${HOST:-127.0.0.1}:${PORT:-80}', {})).toMatchObject({ ok: true, value: '127.0.0.1:80' });
    expect(interpolateEnv('${HOST:-127.0.0.1}', { HOST: '' })).toMatchObject({ ok: true, value: '127.0.0.1' });
    expect(interpolateEnv('${HOST:-127.0.0.1}', { HOST: 'example.org' })).toMatchObject({ ok: true, value: 'example.org' });
    expect(interpolateEnv('${EMPTY:-}', {})).toMatchObject({ ok: true, value: '' });
  });

  it('names every missing variable', () => {
    expect(interpolateEnv('${A}/${B}/${C:-c}', {})).toEqual({ ok: false, missing: ['A', 'B'] });
  });

  it('treats a set-but-empty ${VAR} as set', () => {
    expect(interpolateEnv('x${A}y', { A: '' })).toMatchObject({ ok: true, value: 'xy' });
  });

  it('rejects a malformed reference', () => {
    expect(interpolateEnv('${not valid}', {})).toMatchObject({ ok: false, malformed: '${not valid}' });
  });

  it('leaves text without references alone', () => {
    expect(interpolateEnv('http://127.0.0.1:7101/invoke?a=$b', {})).toMatchObject({ ok: true, value: 'http://127.0.0.1:7101/invoke?a=$b' });
  });
});

const SECRET = 's3cr3t-value-that-must-not-leak';

const REGISTRY = `version: 1
agents:
  - id: hotel_agent
    name: 酒店服务
    description: 酒店
    endpoint:
      url: "https://\${HOTEL_USER:-demo}:\${HOTEL_PASSWORD}@hotel.example/invoke?key=\${HOTEL_KEY}"
      headers:
        Authorization: "Bearer \${HOTEL_AGENT_TOKEN}"
        X-Tenant: "\${TENANT:-public}"
`;

describe('secrets from the environment', () => {
  const env = { HOTEL_PASSWORD: SECRET, HOTEL_KEY: SECRET, HOTEL_AGENT_TOKEN: SECRET };

  it('resolves url and headers on the card', () => {
    const result = loadRegistryText(REGISTRY, 'f.yaml', { env });
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const card = result.snapshot.agents[0];
    expect(card?.endpoint.headers).toEqual({ Authorization: `Bearer ${SECRET}`, 'X-Tenant': 'public' });
    expect(card?.endpoint.url).toBe(`https://demo:${SECRET}@hotel.example/invoke?key=${SECRET}`);
  });

  it('never puts a resolved value into the public card', () => {
    const result = loadRegistryText(REGISTRY, 'f.yaml', { env });
    if (!result.ok) throw new Error('expected a valid registry');
    const publicCard = toPublicCard(result.snapshot.agents[0]!);
    expect(JSON.stringify(publicCard)).not.toContain(SECRET);
    expect(publicCard).not.toHaveProperty('headers');
    expect(publicCard).not.toHaveProperty('url');
    expect(publicCard.protocol).toBe('http-json');
  });

  it('never puts a resolved value into an error message', () => {
    // The url resolves (secret inside) but is then rejected: the message must show the template only.
    const broken = REGISTRY.replace('https://', 'gopher://').replace('Bearer ${HOTEL_AGENT_TOKEN}', 'Bearer ${MISSING_TOKEN}');
    const result = loadRegistryText(broken, 'f.yaml', { env });
    expect(result.ok).toBe(false);
    const text = !result.ok ? result.issues.map(formatIssue).join('\n') : '';
    expect(text).toContain('environment variable MISSING_TOKEN is not set');
    expect(text).toContain('endpoint url must use http or https, not gopher');
    expect(text).not.toContain(SECRET);
  });

  it('shows the url template, not its resolved value, when the url is unparseable', () => {
    const broken = REGISTRY.replace('https://${HOTEL_USER:-demo}:${HOTEL_PASSWORD}@hotel.example', '${HOTEL_PASSWORD} space');
    const result = loadRegistryText(broken, 'f.yaml', { env });
    const text = !result.ok ? result.issues.map(formatIssue).join('\n') : '';
    expect(text).toContain('is not a valid absolute URL');
    expect(text).toContain('${HOTEL_PASSWORD}');
    expect(text).not.toContain(SECRET);
  });

  it('rejects a header whose resolved value contains a line break, without echoing it', () => {
    const result = loadRegistryText(REGISTRY, 'f.yaml', { env: { ...env, HOTEL_AGENT_TOKEN: `${SECRET}\r\nX-Evil: 1` } });
    const text = !result.ok ? result.issues.map(formatIssue).join('\n') : '';
    expect(text).toMatch(/f\.yaml:9:24  \/agents\/0\/endpoint\/headers\/Authorization  header Authorization resolves to a value containing a line break/);
    expect(text).not.toContain(SECRET);
  });
});
