// Sessions of the real Debugger Engine (test/fixtures/transcripts/dbgeng/, recorded by the
// test:dbgeng tier; see each file's header) through the parsers. Their goldens are checked with
// every other transcript's by test/parsers/golden.test.ts; here the places where the real engine's
// text differs from what the parsers had only seen in published transcripts are pinned one by one.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cdbDialect } from '../../src/engine/dialects/cdb.js';
import { parseLastEvent } from '../../src/parsers/last-event.js';
import { splitLog } from '../../src/parsers/split-log.js';
import {
  absorbOutput,
  emptyDebuggerFields,
  missingFields,
} from '../../src/workflows/analyze/debugger-fields.js';
import { readTranscriptFile, REPO_ROOT, type Transcript } from '../parsers/transcripts.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'dbgeng');

function dbgeng(file: string): Transcript {
  return readTranscriptFile(join(DIR, file), `dbgeng/${file}`);
}

/** The output of one command of a session transcript (between its prompt line and the next). */
function outputOf(body: string, command: string): string {
  const found = splitLog(body).sections.find((section) => section.command === command);
  if (!found) throw new Error(`no ${command} in the transcript`);
  return found.output;
}

describe('real Debugger Engine transcripts (dbgeng under Wine)', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.txt'))
    .sort();

  it('has the recorded sessions', () => {
    expect(files.length).to.be.at.least(5);
  });

  it("a dump's stored event has no chance: (first/second chance not available)", () => {
    const body = dbgeng('analyze-av-write-minidump.txt').body;
    const line = body.split('\n').find((l) => l.startsWith('Last event: '));
    expect(line).to.match(/first\/second chance not available/);
    const record = parseLastEvent(line ?? '');
    expect(record).to.include({ code: '0xc0000005' });
    expect(record.chance).to.equal(null);
  });

  it('!analyze without ext.dll is reported as not available, not as an empty analysis', () => {
    const output = outputOf(dbgeng('analyze-av-write-minidump.txt').body, '!analyze -v');
    const fields = emptyDebuggerFields({
      dumpKind: 'mini',
      dumpTimestamp: '2026-11-21T08:24:10.000Z',
      process: {},
      exception: null,
      frames: [],
      modules: { count: 0, withDebugId: 0, withoutDebugId: 0 },
      threadCount: 1,
      memory: { rangeCount: 0, totalBytes: 0 },
      notAvailable: [],
      warnings: [],
    });
    expect(output).to.match(/^No export analyze found/m);
    absorbOutput(fields, { command: '!analyze -v', output }, 'cdb');
    expect(fields.analyze).to.equal(undefined);
    expect(missingFields(fields, 'cdb')).to.include('analyze');
  });

  it('the exit after a passed second chance shows as "No runnable debuggees" on the next g', () => {
    const body = dbgeng('watch-launch-raise-clr-second-chance.txt').body;
    // The stop after `gn` is a bare prompt (.prompt_allow -sym hides ntdll!NtTerminateProcess).
    const afterGn = body.slice(body.lastIndexOf('> gn\n') + 5);
    const untilG = afterGn.slice(0, afterGn.indexOf('> g\n'));
    expect(cdbDialect.parseStop(untilG).kind).to.equal('unknown');
    const afterG = afterGn.slice(afterGn.indexOf('> g\n'));
    expect(afterG).to.match(/\^ No runnable debuggees error in 'g'/);
    expect(cdbDialect.parseStop(afterG).kind).to.equal('exit');
  });
});
