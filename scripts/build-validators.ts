// Build step (npm run build): one standalone ajv validator per schema in schemas/, written to
// dist/validators/<name>.cjs, so a CLI run loads the one validator it needs instead of compiling
// all the schemas at start (src/report/schemas.ts, bench/cli-start.ts).
//   node --import tsx scripts/build-validators.ts [OUT_DIR]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import standalone from 'ajv/dist/standalone/index.js';
import { createSchemaAjv, schemaNames } from '../src/report/schemas.js';

const outDir = resolve(
  process.argv[2] ?? fileURLToPath(new URL('../dist/validators', import.meta.url)),
);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const ajv = createSchemaAjv();
for (const name of schemaNames()) {
  const validate = ajv.getSchema(`${name}.schema.json`);
  if (!validate) throw new Error(`schema ${name} did not compile`);
  writeFileSync(resolve(outDir, `${name}.cjs`), `${standalone.default(ajv, validate)}\n`);
}
console.log(`${schemaNames().length} validators written to ${outDir}`);
