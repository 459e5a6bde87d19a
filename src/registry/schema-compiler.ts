/**
 * Compiles agents' `input_schema` / `output_schema` into ajv validators,
 * reusing validators from earlier loads so a reload only compiles what changed.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describeAjvErrors } from './config-schema.js';
import type { Checked } from './findings.js';
import type { YamlSource } from './yaml-source.js';

const addFormats = addFormatsModule.default;

/**
 * Compiled input/output validators kept between reloads, keyed by the schema's
 * JSON text, so an edit to one agent does not recompile every agent's schemas
 * (compiling is most of a reload's cost). A validator is a pure function of its
 * schema, so sharing one between snapshots is safe. After each good load only
 * the entries that snapshot uses are kept.
 */
export type ValidatorCache = Map<string, { validate: ValidateFunction; warnings: readonly string[] }>;

/** A fresh, empty validator cache (one per live registry). */
export function createValidatorCache(): ValidatorCache {
  return new Map();
}

/** Compiles the schemas of one build. */
export interface SchemaCompiler {
  /** A validator for `schema` (found at `pointer`), or the issues that stop it compiling. */
  compile(schema: Record<string, unknown>, pointer: string, source: YamlSource): Checked<ValidateFunction>;
  /** Drops cached validators this build did not use. */
  pruneCache(): void;
}

/**
 * A compiler for one build. Misses are compiled by one ajv instance per build
 * (created on the first miss), so validators never pile up in a shared
 * instance; hits come from the cache.
 */
export function createSchemaCompiler(cache: ValidatorCache = new Map()): SchemaCompiler {
  const strictWarnings: string[] = [];
  const usedKeys = new Set<string>();
  let ajv: Ajv | undefined;
  const instance = (): Ajv => {
    if (!ajv) {
      ajv = new Ajv({
        allErrors: true,
        verbose: true,
        strict: 'log',
        logger: { log: () => undefined, warn: (...parts: unknown[]) => strictWarnings.push(parts.map(String).join(' ')), error: () => undefined },
      });
      addFormats(ajv);
    }
    return ajv;
  };
  const warningsAt = (source: YamlSource, pointer: string, messages: readonly string[]) =>
    messages.map((message) => source.issueAt(pointer, `JSON Schema: ${message}`));
  return {
    compile(schema, pointer, source) {
      const key = JSON.stringify(schema);
      const cached = cache.get(key);
      if (cached) {
        usedKeys.add(key);
        return { value: cached.validate, issues: [], warnings: warningsAt(source, pointer, cached.warnings) };
      }
      const compiler = instance();
      if (!compiler.validateSchema(schema)) {
        const issues = describeAjvErrors(compiler.errors ?? [], source, pointer).map((issue) => ({
          ...issue,
          message: `not a valid JSON Schema: ${issue.message}`,
        }));
        return { value: undefined, issues, warnings: [] };
      }
      strictWarnings.length = 0;
      try {
        const validate = compiler.compile(schema);
        const schemaWarnings = [...strictWarnings];
        cache.set(key, { validate, warnings: schemaWarnings });
        usedKeys.add(key);
        return { value: validate, issues: [], warnings: warningsAt(source, pointer, schemaWarnings) };
      } catch (error) {
        return { value: undefined, issues: [source.issueAt(pointer, `JSON Schema does not compile: ${(error as Error).message}`)], warnings: [] };
      }
    },
    pruneCache() {
      for (const key of cache.keys()) if (!usedKeys.has(key)) cache.delete(key);
    },
  };
}
