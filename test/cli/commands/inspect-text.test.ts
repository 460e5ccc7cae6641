// The readable `inspect` block: the exception's place reads as a sentence whether or not a module
// holds it, and the process uptime reads as a duration (not `up 0 s`).
import { expect } from 'chai';
import { join } from 'node:path';
import { formatText, formatUptime } from '../../../src/cli/commands/inspect-text.js';
import { inspectDump } from '../../../src/report/inspect/inspect-json.js';
import { REPO_ROOT } from '../../helpers/wine.js';

describe('inspect text', () => {
  it('places an exception outside every module without "in outside"', async () => {
    const dump = await inspectDump(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'), {
      threads: 'none',
    });
    if (!dump.ok || dump.exception === null) throw new Error('example dump did not read');
    expect(formatText(dump)).to.match(
      /^ {12}on thread \d+ \(0x[0-9a-f]+\) at 0x[0-9a-f]+ in av\.exe\+0x154a$/m,
    );
    const outside = { ...dump.exception };
    delete outside.module;
    delete outside.moduleOffset;
    const text = formatText({ ...dump, exception: outside });
    expect(text).to.match(/ at 0x[0-9a-f]+, outside any loaded module$/m);
    expect(text).to.not.include('in outside');
  });

  it('reads uptime as a duration', () => {
    expect([0, 1, 59, 75, 3600, 93_784, 200_000].map(formatUptime)).to.deep.equal([
      'less than 1 s',
      '1 s',
      '59 s',
      '1 min 15 s',
      '1 h',
      '1 d 2 h 3 min',
      '2 d 7 h 33 min',
    ]);
  });
});
