// One default output scheme for every command (docs/cli.md, "Default output folders and file
// names"): ./cdb-harness-out/<command>-<yyMMdd_HHmmss>, the date and time as ProcDump writes them
// in its dump names, which watch's exception dumps now share (dump-file.test.ts).
import { expect } from 'chai';
import { join } from 'node:path';
import { defaultOutDir, outStamp } from '../../src/cli/default-out.js';
import { buildProgram } from '../../src/cli/main.js';
import { snapshotDumpName, exceptionDumpName } from '../../src/workflows/dump/dump-name.js';

const at = new Date(2025, 10, 21, 12, 48, 59); // 21 Nov 2025 12:48:59 local

describe('default output folders and file names', () => {
  it('put every command under ./cdb-harness-out/<command>-<yyMMdd_HHmmss>', () => {
    expect(outStamp(at)).to.equal('251121_124859');
    for (const command of ['analyze', 'watch', 'dump', 'heap-trend'])
      expect(defaultOutDir(command, at)).to.equal(
        join('cdb-harness-out', `${command}-251121_124859`),
      );
  });

  it('stamp dump names with the same yyMMdd_HHmmss as the folders', () => {
    const stamp = outStamp(at);
    expect(snapshotDumpName('w3wp', 1, at)).to.match(new RegExp(`_${stamp}\\.dmp$`));
    expect(exceptionDumpName({ process: 'a', pid: 1, code: '0xc0000005', time: at })).to.match(
      new RegExp(`_${stamp}\\.dmp$`),
    );
  });

  it('say the same default in every command’s --out help', async () => {
    const program = await buildProgram(() => undefined);
    for (const name of ['analyze', 'watch', 'dump', 'heap-trend']) {
      const command = program.commands.find((c) => c.name() === name);
      const out = command?.options.find((o) => o.long === '--out');
      expect(out?.description, name).to.contain(`./cdb-harness-out/${name}-<yyMMdd_HHmmss>`);
    }
  });
});
