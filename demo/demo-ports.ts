/**
 * Where the demo sub-agents listen. The root `agents_config.yaml` reads the
 * same environment variables (`${DEMO_HOTEL_PORT:-7101}`, …), so moving an
 * agent is one variable (or one `--agent-ports` flag of `switchboard demo`,
 * which sets the variables for the registry it loads).
 */

/** Each demo agent's port variable, by the agent's short name. */
export const DEMO_PORT_VARIABLES = {
  hotel: 'DEMO_HOTEL_PORT',
  limo: 'DEMO_LIMO_PORT',
  flight: 'DEMO_FLIGHT_PORT',
  weather: 'DEMO_WEATHER_PORT',
  exchange: 'DEMO_EXCHANGE_PORT',
} as const;

/** Short name of a demo agent with a port (the four travel agents and the A2A exchange agent). */
export type DemoPortName = keyof typeof DEMO_PORT_VARIABLES;

/** The default ports, as written in the root `agents_config.yaml`. */
export const DEFAULT_DEMO_PORTS: Readonly<Record<DemoPortName, number>> = { hotel: 7101, limo: 7102, flight: 7103, weather: 7104, exchange: 7105 };

const NAMES = Object.keys(DEMO_PORT_VARIABLES) as DemoPortName[];

function readPort(text: string, what: string): number {
  const port = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid port "${text}" for ${what}: expected an integer 0-65535 (0 = any free port)`);
  }
  return port;
}

/**
 * The demo agents' ports: the `--agent-ports` flag first (`7201` = five
 * consecutive ports from 7201 in the order hotel, limo, flight, weather,
 * exchange; `0` = free ports; or `hotel=7201,weather=7204`), then each
 * agent's `DEMO_*_PORT` variable, then the defaults. Throws naming a bad value.
 */
export function readDemoPorts(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): Record<DemoPortName, number> {
  const ports = { ...DEFAULT_DEMO_PORTS };
  for (const name of NAMES) {
    const value = env[DEMO_PORT_VARIABLES[name]];
    if (value !== undefined && value !== '') ports[name] = readPort(value, DEMO_PORT_VARIABLES[name]);
  }
  if (flag === undefined) return ports;
  if (!flag.includes('=')) {
    const base = readPort(flag, '--agent-ports');
    if (base > 65535 - NAMES.length + 1) throw new Error(`--agent-ports ${base}: five consecutive ports do not fit below 65536`);
    NAMES.forEach((name, index) => (ports[name] = base === 0 ? 0 : base + index));
    return ports;
  }
  for (const pair of flag.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const [name, value] = pair.split('=', 2) as [string, string | undefined];
    if (!NAMES.includes(name as DemoPortName)) throw new Error(`--agent-ports: unknown demo agent "${name}" (known: ${NAMES.join(', ')})`);
    ports[name as DemoPortName] = readPort(value ?? '', `--agent-ports ${name}`);
  }
  return ports;
}

/** The environment a registry reading `${DEMO_*_PORT}` needs to reach agents listening on `ports`. */
export function demoPortEnvironment(ports: Readonly<Partial<Record<DemoPortName, number>>>): Record<string, string> {
  return Object.fromEntries(
    NAMES.filter((name) => ports[name] !== undefined).map((name) => [DEMO_PORT_VARIABLES[name], String(ports[name])]),
  );
}
