// The build writes one standalone validator per schema (scripts/build-validators.ts) so a CLI run
// compiles nothing. The generated code must judge exactly as ajv compiling the schema does.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { inspectDump } from '../../src/report/inspect/index.js';
import { createSchemaAjv, schemaNames, validate } from '../../src/report/schemas.js';
import { REPO_ROOT } from '../helpers/wine.js';

describe('precompiled schema validators', function () {
  this.timeout(120_000);
  let dir = '';
  const requireGenerated = createRequire(import.meta.url);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cdbh-validators-'));
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'build-validators.ts'), dir],
      { cwd: REPO_ROOT, stdio: 'pipe' },
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one module per schema', () => {
    const written = readdirSync(dir)
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => f.slice(0, -4))
      .sort();
    expect(written).to.deep.equal(schemaNames());
    expect(written).to.include.members(['inspect', 'analyzeRecord', 'analyzeSummary']);
  });

  it('accepts and rejects what ajv compiling the schema accepts and rejects', async () => {
    const dump = await inspectDump(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'));
    const good = { schemaVersion: 1, dumps: [dump] };
    const bad = { schemaVersion: 1, dumps: [{ ...dump, flags: 7, exception: { code: 5 } }] };
    const generated = requireGenerated(join(dir, 'inspect.cjs')) as ValidateFunction;
    const compiled = createSchemaAjv().getSchema('inspect.schema.json');
    expect(compiled).to.be.a('function');
    for (const [value, expected] of [
      [good, true],
      [bad, false],
    ] as const) {
      expect(generated(value), 'generated').to.equal(expected);
      expect(compiled?.(value), 'compiled').to.equal(expected);
      expect(generated.errors ?? null).to.deep.equal(compiled?.errors ?? null);
    }
    expect(validate('inspect', good).ok).to.equal(true);
  });

  it('names an unknown schema instead of throwing', () => {
    const result = validate('noSuchSchema', {});
    expect(result.ok).to.equal(false);
    expect(result.errors[0]).to.match(/no schema named "noSuchSchema"/);
  });
});
