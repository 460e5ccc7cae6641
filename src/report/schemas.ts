// JSON Schemas in schemas/*.schema.json, compiled once with ajv on first use. A schema's name is
// its file name without `.schema.json` (`heapSummary`, `parseEnvelope`, `inspect`, …); schemas
// refer to each other by `$ref: "<name>.schema.json"` (their `$id`).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InternalError } from '../errors.js';

/** schemas/ at the package root, both from src/ (tsx) and from dist/src/ (built). */
export function schemasDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = resolve(dir, 'schemas');
    try {
      readdirSync(candidate);
      if (!candidate.includes(join('src', 'schemas'))) {
        return candidate;
      }
    } catch {
      // not here; go up
    }
    dir = dirname(dir);
  }
  throw new InternalError('schemas/ directory not found next to the package');
}

let compiled: Map<string, ValidateFunction> | undefined;

function load(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  // ISO 8601 timestamps as our writers produce them (`2026-11-21T08:06:26.123Z`); a full
  // ajv-formats dependency for one format is not worth it.
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/.test(text) &&
      !Number.isNaN(Date.parse(text)),
  });
  const dir = schemasDir();
  const names: string[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
    ajv.addSchema({ ...schema, $id: file });
    names.push(file.slice(0, -'.schema.json'.length));
  }
  compiled = new Map();
  for (const name of names) {
    const validate = ajv.getSchema(`${name}.schema.json`);
    if (validate) compiled.set(name, validate);
  }
  return compiled;
}

export function schemaNames(): string[] {
  return [...load().keys()];
}

export interface ValidationResult {
  ok: boolean;
  /** `instancePath message` strings, empty when ok. */
  errors: string[];
}

export function validate(schema: string, value: unknown): ValidationResult {
  const fn = load().get(schema);
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
  if (!result.ok)
    throw new InternalError(`does not match schema ${schema}: ${result.errors.join('; ')}`);
}
