// Hostile input for the parsers of issue #3 part 1 and for log splitting: truncated, shuffled,
// random, CRLF/LF mixes, very long lines. Every parser must return a record that validates, also
// for 1 MB lines shaped to make a regex backtrack (test/parsers/adversarial-lines.ts).
import { expect } from 'chai';
import fc from 'fast-check';
import { parseAnalyze } from '../../src/parsers/analyze.js';
import { findDebuggerEvents, parseDebuggerEvent } from '../../src/parsers/debugger-event.js';
import { parseDumpWritten } from '../../src/parsers/dump-written.js';
import { parseExceptionRecord } from '../../src/parsers/exception-record.js';
import { parseExtensionLoad } from '../../src/parsers/extension-load.js';
import { parseLastEvent } from '../../src/parsers/last-event.js';
import { parseModules } from '../../src/parsers/modules.js';
import { parseText } from '../../src/parsers/parse-text.js';
import { parseSessionEnd } from '../../src/parsers/session-end.js';
import { splitLog } from '../../src/parsers/split-log.js';
import { parseStack } from '../../src/parsers/stack.js';
import { parseStartup } from '../../src/parsers/startup.js';
import { validate } from '../../src/report/schemas.js';
import { ADVERSARIAL_EVENT_LINES } from './adversarial-lines.js';
import { transcript, winedbgFixture } from './transcripts.js';

interface Subject {
  schema: string;
  parse: (text: string) => unknown;
  /** A real sample of its input, to mutate. */
  sample: string;
}

const SUBJECTS: Record<string, Subject> = {
  debuggerEvent: {
    schema: 'debuggerEvent',
    parse: parseDebuggerEvent,
    sample: transcript('events/clr-e0434352-first-and-second-chance-net8-x64.txt').body,
  },
  lastEvent: {
    schema: 'lastEvent',
    parse: parseLastEvent,
    sample: transcript('misc/lastevent-stack-overflow-second-chance-with-time.txt').body,
  },
  exceptionRecord: {
    schema: 'exceptionRecord',
    parse: parseExceptionRecord,
    sample: transcript('misc/exr-cpp-eh-e06d7363-x86-with-types.txt').body,
  },
  stack: {
    schema: 'stack',
    parse: parseStack,
    sample:
      transcript('misc/tilde-star-kv-x86-single-thread-dbghelp-noise.txt').body +
      transcript('misc/tilde-hash-kn50-x64-fuzzmanager-win10.txt').body +
      winedbgFixture('av-unhandled-bt-info-share-minidump.txt').body,
  },
  modules: {
    schema: 'modules',
    parse: parseModules,
    sample:
      transcript('misc/lmvm-mscorwks-x64-debugger-on-wow64-dump.txt').body +
      winedbgFixture('av-unhandled-bt-info-share-minidump.txt').body,
  },
  analyze: {
    schema: 'analyze',
    parse: parseAnalyze,
    sample: transcript('analyze/fuzzmanager-win7-x86-av-minidump-6.12.txt').body,
  },
  startup: {
    schema: 'startup',
    parse: parseStartup,
    sample: transcript('startup/cdb612-dump-netcore2-comment-wake-debugger-loadby-fail.txt').body,
  },
  sessionEnd: { schema: 'sessionEnd', parse: (t) => parseSessionEnd(t, 'q'), sample: 'quit:\n' },
  dumpWritten: {
    schema: 'dumpWritten',
    parse: (t) => parseDumpWritten(t, '.dump /ma x.dmp'),
    sample: transcript('dump-sos-sx/dump-mA-failure-access-denied-adplus.txt').body,
  },
  extensionLoad: {
    schema: 'extensionLoad',
    parse: parseExtensionLoad,
    sample: transcript('dump-sos-sx/loadby-sos-clr-and-mscorwks-unable-to-find-module.txt').body,
  },
  parseEnvelope: {
    schema: 'parseEnvelope',
    parse: (t) => parseText(t),
    sample: transcript('startup/fuzzmanager-full-session-win10-x64-av.txt').body,
  },
};

function expectValid(schema: string, value: unknown): void {
  const result = validate(schema, value);
  expect(result.errors).to.deep.equal([]);
}

/** Mutations of a real sample: truncation, shuffling, line-end mixing. */
const mutation = (sample: string) => {
  const lines = sample.split('\n');
  return fc.oneof(
    fc.nat({ max: sample.length }).map((n) => sample.slice(0, n)),
    fc
      .array(fc.nat({ max: Math.max(0, lines.length - 1) }), { maxLength: lines.length })
      .map((order) => order.map((i) => lines[i] ?? '').join('\n')),
    fc
      .array(fc.constantFrom('\n', '\r\n', '\r\r\n', '\r'), {
        minLength: lines.length,
        maxLength: lines.length,
      })
      .map((ends) => lines.map((l, i) => l + (ends[i] ?? '\n')).join('')),
    fc
      .tuple(fc.nat({ max: Math.max(0, lines.length - 1) }), fc.nat({ max: 200 }))
      .map(([i, cut]) => lines.map((l, j) => (j === i ? l.slice(0, cut) : l)).join('\n')),
  );
};

describe('robustness: part 1 parsers and split-log', function () {
  this.timeout(60_000);

  for (const [name, subject] of Object.entries(SUBJECTS)) {
    describe(name, () => {
      it('returns a valid record for truncated, shuffled and re-ended real output', () => {
        fc.assert(
          fc.property(mutation(subject.sample), (text) => {
            expectValid(subject.schema, subject.parse(text));
          }),
          { numRuns: 60 },
        );
      });

      it('returns a valid record for random text and bytes', () => {
        fc.assert(
          fc.property(
            fc.oneof(
              fc.string({ maxLength: 400 }),
              fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b).toString('latin1')),
            ),
            (text) => {
              expectValid(subject.schema, subject.parse(text));
            },
          ),
          { numRuns: 80 },
        );
      });

      it('survives 10,000-character lines', () => {
        const long = `${'0'.repeat(10_000)} ${'a!b+'.repeat(2_500)}\n(1.2): X - code ${'c'.repeat(10_000)}`;
        expectValid(subject.schema, subject.parse(long + '\n' + subject.sample));
      });

      // A catastrophic backtrack shows as this test's timeout; bench/parser-worst-case.ts times it.
      it('returns a valid record for a 1 MB adversarial line', () => {
        for (const [name, line] of ADVERSARIAL_EVENT_LINES) {
          expect(validate(subject.schema, subject.parse(line)).errors, name).to.deep.equal([]);
        }
      });
    });
  }

  it('findDebuggerEvents and splitLog never throw on random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (text) => {
        expect(findDebuggerEvents(text)).to.be.an('array');
        expect(splitLog(text).sections).to.be.an('array');
      }),
      { numRuns: 200 },
    );
  });
});
