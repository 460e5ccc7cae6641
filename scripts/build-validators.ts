// Build step (npm run build): one standalone ajv validator per schema in schemas/, written to
// dist/validators/<name>.cjs, so a CLI run loads the one validator it needs instead of compiling
// all the schemas at start (src/report/schemas.ts, bench/cli-start.ts).
//   node --import tsx scripts/build-validators.ts [OUT_DIR]
// ajv's standalone code still requires a few helpers of ajv's runtime (a schema with minLength
// or maxLength gets `require("ajv/dist/runtime/ucs2length")`); esbuild inlines them, so the
// installed package needs no ajv at all (ajv is a development dependency: one copy of validation).
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import standalone from 'ajv/dist/standalone/index.js';
import { createSchemaAjv, schemaNames } from '../src/report/schemas.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The generated code with every `require` of ajv's runtime inlined. */
async function selfContained(code: string): Promise<string> {
  // Sample: const func2 = require("ajv/dist/runtime/ucs2length").default;
  if (!/require\("ajv\//.test(code)) return code;
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'js', sourcefile: 'validator.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

const outDir = resolve(process.argv[2] ?? resolve(root, 'dist', 'validators'));
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const ajv = createSchemaAjv();
for (const name of schemaNames()) {
  const validate = ajv.getSchema(`${name}.schema.json`);
  if (!validate) throw new Error(`schema ${name} did not compile`);
  const code = await selfContained(standalone.default(ajv, validate));
  // ajv's helper keeps its own require line as a string (`ucs2length.code = 'require("ajv…'`):
  // only a call outside quotes counts.
  if (/(?:^|[^'])require\("ajv\//m.test(code)) {
    throw new Error(`validator ${name} still requires ajv`);
  }
  writeFileSync(resolve(outDir, `${name}.cjs`), `${code}\n`);
}
console.log(`${schemaNames().length} validators written to ${outDir}`);
