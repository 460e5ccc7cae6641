// `inspect --json` amplification (issue 30, item 7): a 1.9 MB dump whose 16,384 module names all
// point at one 64 KB string took `inspect --json` to 1 GB and `Invalid string length`: the 16 MiB
// budget of referenced bytes counted each RVA once, and repeated reads of it were free. What is
// produced counts now: the names handed out stay within the budget, the rest are refused with
// the budget's warning.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_REFERENCED_BYTES } from '../../src/minidump/read-limits.js';
import { inspectDump } from '../../src/report/inspect/inspect-json.js';
import { repeatedNameDump } from '../helpers/hostile-dumps.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('strings produced from one RVA count against the dump budget', function () {
  this.timeout(120_000);

  it('names 2,048 modules from one 64 KB string: at most the budget of names, and a warning', async () => {
    const file = join(makeTempDir('amplify'), 'names.dmp');
    writeFileSync(file, repeatedNameDump(2048, 32_767));
    const dump = await inspectDump(file);
    expect(dump.ok).to.equal(true);
    if (!dump.ok) return;
    expect(dump.modules).to.have.length(2048);
    const produced = dump.modules.reduce((n, m) => n + m.path.length * 2, 0);
    expect(produced).to.be.at.most(MAX_REFERENCED_BYTES);
    expect(produced).to.be.above(MAX_REFERENCED_BYTES / 2);
    expect(dump.warnings.join('\n')).to.match(/references more than \d+ bytes of strings/);
    expect(JSON.stringify(dump).length).to.be.below(2 * MAX_REFERENCED_BYTES);
  });
});
