// Writes schemas/parseEnvelope.schema.json from the parsers' descriptors: the `kind` enum and one
// `if kind == K then record is schemas/K.schema.json` rule per kind, in the registry's order.
// test/parsers/envelope-schema.test.ts fails when the committed file differs from what this
// prints, so a new parser's kind cannot be left out of the envelope.
//
//   npm run generate:schemas        (node --import tsx scripts/generate-envelope-schema.ts)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { RECORD_KINDS } from '../src/parsers/registry.js';

export const ENVELOPE_SCHEMA_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'schemas',
  'parseEnvelope.schema.json',
);

export function envelopeSchema(kinds: readonly string[] = RECORD_KINDS): object {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'parseEnvelope: what `cdb-harness parse` prints (records.md)',
    type: 'object',
    required: ['schemaVersion', 'entries', 'events'],
    properties: {
      schemaVersion: { const: 1 },
      entries: { type: 'array', items: { $ref: '#/$defs/entry' } },
      events: { type: 'array', items: { $ref: 'debuggerEvent.schema.json' } },
    },
    $defs: {
      entry: {
        type: 'object',
        required: ['command', 'kind', 'record', 'warnings'],
        properties: {
          command: { type: ['string', 'null'] },
          kind: { enum: [...kinds] },
          record: { type: 'object' },
          warnings: { type: 'array', items: { type: 'string' } },
        },
        allOf: kinds.map((kind) => ({
          if: { properties: { kind: { const: kind } } },
          then: { properties: { record: { $ref: `${kind}.schema.json` } } },
        })),
      },
    },
  };
}

/** The file's text: the schema as the repository's prettier settings print JSON. */
export async function envelopeSchemaText(): Promise<string> {
  const options = (await resolveConfig(ENVELOPE_SCHEMA_PATH)) ?? {};
  return format(JSON.stringify(envelopeSchema(), null, 2), { ...options, parser: 'json' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ENVELOPE_SCHEMA_PATH, await envelopeSchemaText());
  console.log(`wrote ${ENVELOPE_SCHEMA_PATH} (${RECORD_KINDS.length} kinds)`);
}
