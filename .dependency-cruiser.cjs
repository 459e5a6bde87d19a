/**
 * The layering of src/, as docs/architecture.md writes it, and the rules that
 * hold the code to it (run by test/architecture/layering.test.ts, so `npm test`
 * fails on a breach; by hand: `npx depcruise src --config .dependency-cruiser.cjs`).
 *
 * Rooms sit on tiers, lowest first. A file may import its own room and the
 * rooms of lower tiers; never a room of its own tier, never one above. That
 * rules out every cycle between rooms; `no-circular` rules out cycles between
 * files too. Test files are not cruised (they may reach into any room to set
 * a scene), but production code never imports a test or test support.
 */

/** The files at the root of src/ below every folder (errors, logs, metrics, trace context, id patterns). */
const BASE_FILES = ['errors.ts', 'logger.ts', 'metrics.ts', 'trace-context.ts', 'id-patterns.ts'];

/** Lowest first. A room is a folder under src/, `base` (the files above), or the assembly file at the root. */
const TIERS = [
  { tier: 0, name: 'foundation', rooms: ['util', 'i18n', 'base'] },
  { tier: 1, name: 'text, telemetry, what a turn says', rooms: ['text', 'telemetry', 'events'] },
  { tier: 2, name: 'config and storage', rooms: ['registry', 'store'] },
  { tier: 3, name: 'model gateway, sub-agent client, outbound data', rooms: ['llm', 'agents', 'privacy'] },
  { tier: 4, name: 'word meaning and the message\'s reading', rooms: ['embeddings', 'understanding'] },
  { tier: 5, name: 'planning', rooms: ['planning'] },
  { tier: 6, name: 'recognition and escalation', rooms: ['intent', 'escalation'] },
  { tier: 7, name: 'the graph and the agent side', rooms: ['graph', 'agent-kit', 'conformance'] },
  { tier: 8, name: 'turn and eval', rooms: ['turn', 'eval'] },
  { tier: 9, name: 'HTTP', rooms: ['http'] },
  { tier: 10, name: 'assembly', rooms: ['switchboard.ts'] },
  { tier: 11, name: 'commands', rooms: ['cli'] },
];

/**
 * Names one room alone defines, and every other file imports from that room's index.ts: the
 * event a turn sends out and its parts. dependency-cruiser sees files, not names, so the layering
 * test reads these from every import and declaration (test/architecture/owned-names.ts).
 */
const OWNED_NAMES = { ResponseState: 'events', SemanticInfo: 'events', ConfirmationRequest: 'events' };

/** The path pattern of a room. */
function roomPath(room) {
  const escape = (name) => name.replace(/[.]/g, '\\.');
  if (room === 'base') return `^src/(${BASE_FILES.map(escape).join('|')})$`;
  return room.endsWith('.ts') ? `^src/${escape(room)}$` : `^src/${escape(room)}/`;
}

const layering = TIERS.flatMap(({ tier, rooms }) =>
  rooms.flatMap((room) => {
    const notAllowed = TIERS.filter((other) => other.tier >= tier)
      .flatMap((other) => other.rooms)
      .filter((other) => other !== room);
    if (notAllowed.length === 0) return []; // the top room may import any other
    return {
      name: `layering:${room}`,
      comment: `src/${room} (tier ${tier}) may import its own room and lower tiers only (docs/architecture.md)`,
      severity: 'error',
      from: { path: roomPath(room) },
      to: { path: notAllowed.map(roomPath) },
    };
  }),
);

/** Every folder room is seen by the others through its index.ts only (its hand-picked names); a room's own files import each other directly. */
const throughIndex = TIERS.flatMap(({ rooms }) => rooms)
  .filter((room) => room !== 'base' && !room.endsWith('.ts'))
  .map((room) => ({
    name: `through-index:${room}`,
    comment: `other rooms import src/${room}/ through src/${room}/index.ts only (docs/architecture.md)`,
    severity: 'error',
    from: { path: '^src/', pathNot: [`^src/${room}/`, '\\.test\\.ts$'] },
    to: { path: `^src/${room}/`, pathNot: `^src/${room}/index\\.ts$` },
  }));

module.exports = {
  forbidden: [
    ...layering,
    {
      name: 'no-circular',
      comment: 'no import cycle between files',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-tests-in-production',
      comment: 'production code never imports a test or test support',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: ['\\.test\\.ts$', '^test/'] },
    },
    ...throughIndex,
    {
      name: 'response-state-in-events-only',
      comment: 'the outgoing event type has one home: src/events/ (a response-state module anywhere else is a second definition)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '(^|/)response-state[^/]*\\.ts$', pathNot: '^src/events/' },
    },
    {
      name: 'express-in-http-only',
      comment: 'only the HTTP edge (and the assembly that starts it) speaks express',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/http/', '^src/switchboard\\.ts$', '\\.test\\.ts$'] },
      to: { path: 'node_modules/express/' },
    },
    {
      name: 'databases-in-store-only',
      comment: 'only storage touches SQL, Redis and the checkpoint savers',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/store/', '\\.test\\.ts$'] },
      to: { path: ['node_modules/(pg|better-sqlite3|ioredis)/', 'node_modules/@langchain/langgraph-checkpoint-(postgres|sqlite)/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

// The tiers, for the test that holds docs/architecture.md to them (not enumerable: the config format allows no extra key).
Object.defineProperty(module.exports, 'TIERS', { value: TIERS, enumerable: false });
Object.defineProperty(module.exports, 'BASE_FILES', { value: BASE_FILES, enumerable: false });
Object.defineProperty(module.exports, 'OWNED_NAMES', { value: OWNED_NAMES, enumerable: false });
