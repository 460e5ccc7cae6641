// docs/library.md: every ```js block is a complete module that runs, from the repository root,
// against the library (the `cdb-harness` specifier is pointed at src/index.ts), and every
// function the package entry exports is called in one of them. Blocks after a `needs Wine`
// heading run only where the Wine rig is ready.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as api from '../../src/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';

interface Example {
  heading: string;
  code: string;
  needsWine: boolean;
}

function examples(): Example[] {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'library.md'), 'utf8');
  const out: Example[] = [];
  let heading = '';
  // "```js" … "```": one example.
  for (const match of text.matchAll(/^(## .*)$|^```js\n([\s\S]*?)^```$/gm)) {
    if (match[1] !== undefined) heading = match[1];
    else out.push({ heading, code: match[2]!, needsWine: /needs Wine/.test(heading) });
  }
  return out;
}

const ENTRY = pathToFileURL(join(REPO_ROOT, 'src', 'index.ts')).href;
const all = examples();

describe('docs/library.md examples', function () {
  this.timeout(300_000);

  it('call every function the package exports', () => {
    const code = all.map((e) => e.code).join('\n');
    const functions = Object.entries(api)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      // Classes: the error family is shown by UsageError/isHarnessError; the others are made by
      // the functions shown (openMinidump → Minidump, memoryMap() → MemoryMap).
      .filter((name) => !/Error$|^Minidump$|^MemoryMap$/.test(name));
    const uncalled = functions.filter((name) => !new RegExp(`\\b${name}\\b`).test(code));
    expect(uncalled).to.deep.equal([]);
  });

  all.forEach((example, index) => {
    const title = `${example.heading.replace(/^## /, '')} #${index + 1}`;
    const run = example.needsWine && !wineRigReady() ? it.skip : it;
    run(title, () => {
      const file = join(makeTempDir('libdoc'), 'example.mjs');
      writeFileSync(file, example.code.replace(/from 'cdb-harness'/g, `from '${ENTRY}'`));
      const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: example.needsWine ? wineEnv() : process.env,
        timeout: 240_000,
      });
      expect(result.status, `${result.stderr}\n${result.stdout}`).to.equal(0);
      // A value an example only logs is not checked: one that logs `undefined` calls a function
      // wrongly (accessViolationDetail(parameters) once did; its signature is (code, parameters)).
      expect(result.stdout, title).to.not.match(/^undefined$/m);
    });
  });
});
