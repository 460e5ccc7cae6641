// A real x86 Windows dump written by DbgHelp (Breakpad's minidump2.dmp, see fixtures/README.md),
// walked with no symbols and no images: the EBP chain alone must give the same four frames as
// Breakpad's minidump_stackwalk printed for it (same module, EIP, ESP, in order), and stop there.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectDump } from '../../src/minidump/index.js';
import { walkDumpStacks } from '../../src/workflows/stacks/dump-stacks.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface BreakpadFrame {
  module: string;
  eip: string;
  esp: string;
}

/** The crashed thread's frames from minidump_stackwalk's text output. */
function breakpadFrames(text: string): BreakpadFrame[] {
  const section = text.slice(text.indexOf('(crashed)'), text.indexOf('Loaded modules:'));
  const frames: BreakpadFrame[] = [];
  // Sample lines: " 1  test_app.exe!main [test_app.cc : 65 + 0x5]" and
  // "    eip = 0x00404200   esp = 0x0012fe90   ebp = 0x0012ff70"
  for (const match of section.matchAll(
    /^ *\d+ {2}([^!\s]+)!.*\n\s+eip = (0x[0-9a-f]+)\s+esp = (0x[0-9a-f]+)/gm,
  )) {
    frames.push({
      module: match[1]!,
      eip: `0x${BigInt(match[2]!).toString(16)}`,
      esp: `0x${BigInt(match[3]!).toString(16)}`,
    });
  }
  return frames;
}

describe('x86 walk of a real DbgHelp dump (Breakpad minidump2)', () => {
  it('follows the frame pointers to the same four frames minidump_stackwalk gives', async () => {
    const expected = breakpadFrames(
      readFileSync(join(FIXTURES, 'breakpad-minidump2.stackwalk.out'), 'utf8'),
    );
    expect(expected).to.have.length(4);
    const dump = await inspectDump(join(FIXTURES, 'breakpad-minidump2.dmp'), {
      stacks: (d) => walkDumpStacks(d, { recordedPaths: false, threads: 'exception' }),
    });
    if (!dump.ok) throw new Error(dump.error.message);
    expect(dump.system?.arch).to.equal('x86');
    const crashed = dump.threads.find((t) => t.faulting === true)?.stack;
    expect(crashed?.context).to.equal('exception');
    expect(
      crashed?.frames.map((f) => ({ module: f.module, eip: f.address, esp: f.stackPointer })),
    ).to.deep.equal(expected);
    expect(crashed?.frames.slice(1).every((f) => f.trust === 'frame-pointer')).to.equal(true);
    expect(crashed?.stop).to.equal('end');
    expect(dump.exception?.registers).to.include({
      eip: '0x40429e',
      esp: '0x12fe84',
      ebp: '0x12fe88',
    });
  });
});
