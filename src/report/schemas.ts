// JSON Schemas in schemas/*.schema.json. A schema's name is its file name without `.schema.json`
// (`heapSummary`, `parseEnvelope`, `inspect`, …); schemas refer to each other by
// `$ref: "<name>.schema.json"` (their `$id`).
//
// Start-up matters (a CLI run validates one or two schemas): the build turns every schema into a
// standalone validator module with ajv's code generator (scripts/build-validators.ts writes
// dist/validators/<name>.cjs), and a run loads only the one it asks for. Without a build (tests
// under tsx) the schema is compiled on first use, from the same files with the same options, and
// only that schema. Both load synchronously (CommonJS via createRequire) so validate() stays sync.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as ajvModule from 'ajv';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';

const here = dirname(fileURLToPath(import.meta.url));
const requireHere = createRequire(import.meta.url);

/** schemas/ at the package root, both from src/ (tsx) and from dist/src/ (built). */
export function schemasDir(): string {
  for (const candidate of [resolve(here, '../../schemas'), resolve(here, '../../../schemas')]) {
    if (existsSync(join(candidate, 'inspect.schema.json'))) return candidate;
  }
  throw new Error(`schemas/ directory not found next to the package (looked up from ${here})`);
}

/** Where the build puts the generated validators: dist/validators/ (absent under tsx). */
export function validatorsDir(): string {
  return resolve(here, '../../validators');
}

/** The ajv options used both at build time and for on-demand compiling. */
export const AJV_OPTIONS: Options = { allErrors: true, strict: false, code: { source: true } };

/**
 * ISO 8601 timestamps as our writers produce them (`2026-11-21T08:06:26.123Z`). A RegExp (not a
 * function) so the generated standalone code can inline it; a full ajv-formats dependency for
 * one format is not worth it.
 */
export const DATE_TIME_FORMAT =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** An ajv instance holding every schema (added, not compiled: ajv compiles on getSchema). */
export function createSchemaAjv(): Ajv {
  const { Ajv: AjvClass } = requireHere('ajv') as typeof ajvModule;
  const ajv = new AjvClass(AJV_OPTIONS);
  ajv.addFormat('date-time', DATE_TIME_FORMAT);
  const dir = schemasDir();
  for (const name of schemaNames()) {
    const file = `${name}.schema.json`;
    const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
    ajv.addSchema({ ...schema, $id: file });
  }
  return ajv;
}

let names: string[] | undefined;

export function schemaNames(): string[] {
  names ??= readdirSync(schemasDir())
    .filter((file) => file.endsWith('.schema.json'))
    .sort()
    .map((file) => file.slice(0, -'.schema.json'.length));
  return [...names];
}

const validators = new Map<string, ValidateFunction>();
let runtimeAjv: Ajv | undefined;

function validatorFor(schema: string): ValidateFunction | undefined {
  const known = validators.get(schema);
  if (known) return known;
  if (!/^[A-Za-z0-9_-]+$/.test(schema) || !schemaNames().includes(schema)) return undefined;
  let fn: ValidateFunction | undefined;
  const generated = join(validatorsDir(), `${schema}.cjs`);
  if (existsSync(generated)) {
    fn = requireHere(generated) as ValidateFunction;
  } else {
    runtimeAjv ??= createSchemaAjv();
    fn = runtimeAjv.getSchema(`${schema}.schema.json`);
  }
  if (fn) validators.set(schema, fn);
  return fn;
}

export interface ValidationResult {
  ok: boolean;
  /** `instancePath message` strings, empty when ok. */
  errors: string[];
}

export function validate(schema: string, value: unknown): ValidationResult {
  const fn = validatorFor(schema);
  if (!fn) return { ok: false, errors: [`no schema named "${schema}" in ${schemasDir()}`] };
  const ok = fn(value);
  return {
    ok,
    errors: ok
      ? []
      : (fn.errors ?? []).map((e: ErrorObject) =>
          `${e.instancePath || '/'} ${e.message ?? ''}`.trim(),
        ),
  };
}

/** Throws a plain Error listing what failed: for tests and for checking our own output. */
export function assertValid(schema: string, value: unknown): void {
  const result = validate(schema, value);
  if (!result.ok) throw new Error(`does not match schema ${schema}: ${result.errors.join('; ')}`);
}
