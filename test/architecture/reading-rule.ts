/**
 * The rule that keeps the message read once (docs/architecture.md, "The
 * message's reading"), checked on source text: dependency-cruiser sees imports,
 * not calls.
 *
 * 1. The reading's own steps — `readMessage`, `readTurnQuery`, `splitClauses`,
 *    `classifyReplyWord`, `readText` — are imported from `src/understanding/` only where the
 *    reading is made: the turn makes it (`readMessage`), the eval reads its
 *    lines with it (`readTurnQuery`), a plan reads a rewrite that is not the
 *    message (`readText`); nowhere else re-reads the message.
 * 2. A normal form (`.normalize(...)`, `normalizeText(...)`) is taken in
 *    `src/understanding/` and `src/text/` (which provides it), and elsewhere
 *    only in the files listed: exempt by kind (`NOT_THE_MESSAGE`: registry
 *    text normalised at build time, answers, eval expectations, baselines, the
 *    masking fold), or named as a known place still to move
 *    (`STILL_TO_MOVE`). The lists only shrink: a new file that normalises
 *    breaks the rule.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Which rooms may import each step of the reading (paths under src/, by prefix). */
export const READING_STEPS: Readonly<Record<string, readonly string[]>> = {
  // The turn reads the message; the control node reads a stored message a clarification was about, when it runs.
  readMessage: ['src/turn/', 'src/graph/nodes/control-node.ts'],
  readTurnQuery: ['src/eval/'],
  // Still to move onto the reading: several values of one key in the plan text.
  splitClauses: ['src/planning/several-values.ts'],
  classifyReplyWord: [],
  // A text that is not the message (a rewrite with earlier turns' words, the model's rewrite) is read where a plan is made.
  readText: ['src/planning/plan-texts.ts'],
};

/**
 * Files exempt by kind: the text they normalise is not the user's message — registry text
 * (examples, keywords, enum values) normalised when a snapshot or an index is built,
 * expected values of an eval line, a baseline's own tokens (a
 * baseline shares nothing with the product), or one character at a time for the personal-data
 * fold, whatever text it masks.
 */
export const NOT_THE_MESSAGE: Readonly<Record<string, string>> = {
  'src/conformance/resolve-target.ts': 'registry examples',
  'src/eval/dialogue-report.ts': 'expected and actual key values of a dialogue line',
  'src/eval/linear-baseline.ts': "the baseline's own tokens",
  'src/eval/nearest-baseline.ts': "the baseline's own tokens",
  'src/graph/caches/answer-cache.ts': "the registry's enum values",
  'src/graph/caches/cache-scope.ts': "the registry's keywords and examples, question fillers and a plan's captured values (the question comes in normal form)",
  'src/intent/clarification.ts': "the options' labels and their agents' names",
  'src/intent/routing/attribute-clause.ts': "the keys' labels",
  'src/intent/routing/ranker-model.ts': 'registry examples',
  'src/intent/routing/registry-evidence.ts': 'registry examples and keywords',
  'src/privacy/mask-personal-data.ts': 'one character at a time, for the personal-data fold',
  'src/registry/registry-lint.ts': 'registry examples',
};

/**
 * Files that still normalise the user's words, or a text made of them (a rewrite, a clause, a
 * stored turn), beside other texts: places still to move onto the reading. This list only shrinks.
 */
export const STILL_TO_MOVE: Readonly<Record<string, string>> = {
  'src/planning/llm-planner.ts': "a draft's values and the texts they are checked against",
};

/** Files outside the reading room that take a normal form, and of what. */
export const NORMALISING_FILES: Readonly<Record<string, string>> = { ...NOT_THE_MESSAGE, ...STILL_TO_MOVE };

const NORMALISES = /\.normalize\(|\bnormalizeText\(/;
const IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g;

/** The breaches of the rule in the production files under `root`/src, as `rule: file: detail` lines. */
export async function readingBreaches(root: string): Promise<string[]> {
  const breaches: string[] = [];
  for (const file of await sourceFiles(join(root, 'src'))) {
    const path = relative(root, file).split('\\').join('/');
    if (path.startsWith('src/understanding/')) continue;
    const text = await readFile(file, 'utf8');
    for (const [, names, from] of text.matchAll(IMPORT)) {
      if (!/(^|\/)understanding\//.test(from!)) continue;
      for (const name of names!.split(',').map((part) => part.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0]!.trim())) {
        const allowed = READING_STEPS[name];
        if (allowed && !allowed.some((prefix) => path.startsWith(prefix))) breaches.push(`reading-made-once: ${path}: imports ${name}`);
      }
    }
    if (!path.startsWith('src/text/') && NORMALISES.test(text) && !(path in NORMALISING_FILES)) {
      const line = text.split('\n').findIndex((candidate) => NORMALISES.test(candidate)) + 1;
      breaches.push(`normal-form-in-the-reading: ${path}:${line}: takes a normal form outside src/understanding/`);
    }
  }
  return breaches.sort();
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(path);
      return Promise.resolve(entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}
