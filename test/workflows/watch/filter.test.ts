import { expect } from 'chai';
import fc from 'fast-check';
import { isHarnessError } from '../../../src/errors.js';
import {
  evaluateFilters,
  parseFilter,
  parseFilterSet,
  procdumpText,
  termMatches,
  type FilterSubject,
} from '../../../src/workflows/watch/filter.js';

const clr: FilterSubject = {
  code: '0xe0434352',
  description: 'CLR exception',
  clrType: 'System.InvalidOperationException',
  clrMessage: 'Operation timed out after 30 s',
  frames: [
    'KERNELBASE!RaiseException+0x62',
    'App!App.Worker.Run()+0x1a',
    'App!App.Program.Main(System.String[])+0x9',
  ],
};
const av: FilterSubject = {
  code: '0xc0000005',
  description: 'page fault on write access to 0x0000000000000010',
  frames: ['av!crash_here+0x8', 'av!main+0x42'],
};

const matches = (filter: string, subject: FilterSubject) =>
  termMatches(parseFilter(filter), subject);

describe('watch filter language', () => {
  it('matches codes as hex, without 0x, by name, and by hex glob', () => {
    expect(matches('code:0xc0000005', av)).to.equal(true);
    expect(matches('code:C0000005', av)).to.equal(true);
    expect(matches('code:av', av)).to.equal(true);
    expect(matches('code:clr', clr)).to.equal(true);
    expect(matches('code:e04343*', clr)).to.equal(true);
    expect(matches('code:e04343*', av)).to.equal(false);
  });

  it('matches a CLR type exactly, by glob, and without its namespace', () => {
    expect(matches('type:System.InvalidOperationException', clr)).to.equal(true);
    expect(matches('type:InvalidOperationException', clr)).to.equal(true);
    expect(matches('type:invalidoperationexception', clr)).to.equal(true);
    expect(matches('type:System.*', clr)).to.equal(true);
    expect(matches('type:*Operation*', clr)).to.equal(true);
    expect(matches('type:Operation', clr)).to.equal(false);
    expect(matches('type:System.IO.*', clr)).to.equal(false);
    expect(matches('type:NullReferenceException', av)).to.equal(false);
  });

  it('matches messages by regex (searching) or glob (whole value); native exceptions offer their description', () => {
    expect(matches('message:/timed out/', clr)).to.equal(true);
    expect(matches('message:/TIMED/i', clr)).to.equal(true);
    expect(matches('message:/TIMED/', clr)).to.equal(false);
    expect(matches('message:Operation*', clr)).to.equal(true);
    expect(matches('message:timed out', clr)).to.equal(false);
    expect(matches('message:page fault on write*', av)).to.equal(true);
  });

  it('matches modules (extension optional) and frames without offsets', () => {
    expect(matches('module:av', av)).to.equal(true);
    expect(matches('module:av.exe', { ...av, frames: ['av.exe!main+0x1'] })).to.equal(true);
    expect(matches('module:av.exe', av)).to.equal(false);
    expect(matches('frame:av!crash_here', av)).to.equal(true);
    expect(matches('frame:*!crash_here', av)).to.equal(true);
    expect(matches('frame:/Worker\\.Run/', clr)).to.equal(true);
    expect(matches('frame:crash_here', av)).to.equal(false);
  });

  it('treats a bare pattern like ProcDump -f: a substring of CODE.Type ("message") or the description', () => {
    expect(procdumpText(clr)).to.equal(
      'E0434352.System.InvalidOperationException ("Operation timed out after 30 s")',
    );
    expect(matches('InvalidOperation', clr)).to.equal(true);
    expect(matches('E0434352.System.Invalid*', clr)).to.equal(true);
    expect(matches('timed out', clr)).to.equal(true);
    expect(matches('C0000005', av)).to.equal(true);
    expect(matches('page fault', av)).to.equal(true);
    expect(matches('NullReference', clr)).to.equal(false);
  });

  it('lets excludes win over includes, and matches everything with no includes', () => {
    const set = parseFilterSet(['code:clr', 'code:av'], ['message:/timed out/']);
    expect(evaluateFilters(set, clr)).to.deep.equal({
      matched: false,
      by: 'exclude message:/timed out/',
    });
    expect(evaluateFilters(set, av)).to.deep.equal({ matched: true, by: 'code:av' });
    expect(evaluateFilters(parseFilterSet([], []), av)).to.deep.equal({ matched: true, by: '*' });
    expect(evaluateFilters(parseFilterSet(['type:X'], []), av).matched).to.equal(false);
  });

  it('refuses unknown fields, empty patterns, bad regexes and non-codes as usage errors', () => {
    for (const bad of ['kind:x', 'type:', 'message:/(/', 'code:zebra']) {
      let error: unknown;
      try {
        parseFilter(bad);
      } catch (e) {
        error = e;
      }
      expect(isHarnessError(error) && error.code, bad).to.equal('USAGE');
    }
  });

  it('a lone * type glob matches every CLR type, and a literal type always matches itself', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.]{0,40}$/), (type) => {
        const subject: FilterSubject = {
          code: '0xe0434352',
          description: null,
          clrType: type,
          frames: [],
        };
        expect(matches('type:*', subject)).to.equal(true);
        expect(matches(`type:${type}`, subject)).to.equal(true);
      }),
    );
  });
});
