// The parsers describe themselves (src/parsers/descriptor.ts); everything derived from the
// descriptors is checked here: the published kind list, one schema per kind, the committed
// envelope schema, and one command table where no command belongs to two parsers.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { ParserDescriptor } from '../../src/parsers/descriptor.js';
import { lookupCommand, PARSERS, RECORD_KINDS } from '../../src/parsers/registry.js';
import { validate } from '../../src/report/schemas.js';
import {
  ENVELOPE_SCHEMA_PATH,
  envelopeSchemaText,
} from '../../scripts/generate-envelope-schema.js';

describe('parser descriptors', () => {
  it('keep the published record kinds (kinds are API: added, never renamed)', () => {
    expect(RECORD_KINDS).to.include.members([
      'heapSummary',
      'heapStat',
      'printException',
      'clrStack',
      'debuggerEvent',
      'lastEvent',
      'exceptionRecord',
      'stack',
      'modules',
      'analyze',
      'dumpWritten',
      'extensionLoad',
      'dumpHeapStat',
      'eeHeapGc',
      'addressSummary',
      'umdhDiff',
      'umdhLog',
      'dumpHeapShort',
      'gcRoot',
      'startup',
      'sessionEnd',
      'unknown',
    ]);
    expect(new Set(RECORD_KINDS).size).to.equal(RECORD_KINDS.length);
  });

  it('each have a schema, and a record parsed from empty output matches it', () => {
    const parsers: readonly ParserDescriptor[] = PARSERS;
    for (const parser of parsers) {
      const record = parser.parse('', null);
      expect(validate(parser.kind, record).errors, parser.kind).to.deep.equal([]);
      expect(parser.summary(record), parser.kind).to.be.an('array');
    }
  });

  it('generate the committed schemas/parseEnvelope.schema.json (npm run generate:schemas)', async () => {
    expect(readFileSync(ENVELOPE_SCHEMA_PATH, 'utf8')).to.equal(await envelopeSchemaText());
  });

  it('give every command at most one parser', () => {
    // Commands as users and the triage scripts type them (dbgscripts/triage.*.txt).
    const commands = [
      '!heap -s',
      '!heap -s -h 0',
      '!heap -stat -h 00310000',
      '!pe -nested',
      '!sos.printexception',
      'pe -lines',
      '!clrstack -a',
      'clrstack',
      '!dumpheap -type System.String -stat',
      '!eeheap -gc',
      '!address -summary',
      'kn 50',
      '~#kn 50',
      '~* kv',
      'bt',
      'lmv m ntdll',
      'info share',
      '.lastevent',
      'info exception',
      '.exr -1',
      '!analyze -v',
      '.dump /ma /o c:\\dumps\\app.dmp',
      'minidump "/tmp/app.dmp"',
      '.loadby sos clr',
      'qd',
      'umdh -p:1234 -f:snap1.log',
      'umdh log1.txt log2.txt',
      'cdb -z crash.dmp',
    ];
    for (const command of commands) {
      const matching = PARSERS.filter((p) => p.commands.some((re) => re.test(command)));
      expect(
        matching.map((p) => p.kind),
        command,
      ).to.have.length(1);
      expect(lookupCommand(command)?.kind, command).to.equal(matching[0]?.kind);
    }
  });
});
