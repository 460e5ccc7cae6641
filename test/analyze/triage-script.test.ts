import { expect } from 'chai';
import {
  defaultScriptPath,
  loadTriageScript,
  parseTriageScript,
  stepApplies,
} from '../../src/workflows/analyze/triage-script.js';
import { commandKind } from '../../src/workflows/analyze/debugger-fields.js';

const NATIVE_MINI = { exception: true, full: false, clr: false, coreclr: false };
const CLR_FULL = { exception: true, full: true, clr: true, coreclr: false };

describe('analyze triage scripts', () => {
  it('reads one command per line, skipping $$ and # comments and blank lines', () => {
    const steps = parseTriageScript('$$ title\n# note\n\n.lastevent\n  kn 50  \n');
    expect(steps.map((s) => s.command)).to.deep.equal(['.lastevent', 'kn 50']);
    expect(steps[1]?.line).to.equal(5);
  });

  it('runs guarded steps only for dumps that meet the condition', () => {
    const steps = parseTriageScript(
      '?full !heap -s\n?clr .loadby sos clr\n?managed !pe\n.lastevent',
    );
    const run = (facts: typeof NATIVE_MINI, sos: boolean) =>
      steps.filter((s) => stepApplies(s, facts, sos)).map((s) => s.command);
    expect(run(NATIVE_MINI, false)).to.deep.equal(['.lastevent']);
    expect(run(CLR_FULL, false)).to.deep.equal(['!heap -s', '.loadby sos clr', '.lastevent']);
    expect(run(CLR_FULL, true)).to.include('!pe');
  });

  it('refuses unknown conditions and empty scripts with the line number', () => {
    expect(() => parseTriageScript('?weekend kn', 'my.txt')).to.throw(
      /my.txt:1: unknown condition/,
    );
    expect(() => parseTriageScript('$$ only comments')).to.throw(/no commands/);
  });

  it('ships default scripts for both debuggers whose commands all have a parser', () => {
    for (const dialect of ['cdb', 'winedbg'] as const) {
      const steps = loadTriageScript(defaultScriptPath(dialect));
      expect(steps.length).to.be.greaterThan(2);
      const kinds = steps.map((s) => commandKind(s.command));
      expect(kinds).to.include('stack');
      expect(kinds).to.include('lastEvent');
    }
  });

  it('sends each cdb command to the parser for its kind', () => {
    expect(commandKind('kn 50')).to.equal('stack');
    expect(commandKind('~#kb')).to.equal('stack');
    expect(commandKind('.kill')).to.equal('other');
    expect(commandKind('!analyze -v')).to.equal('analyze');
    expect(commandKind('.loadby sos coreclr')).to.equal('extensionLoad');
    expect(commandKind('!PrintException')).to.equal('printException');
    expect(commandKind('!heap -s')).to.equal('heapSummary');
    expect(commandKind('info exception')).to.equal('lastEvent');
    // `kd` prints raw stack words, not frames: not the stack parser's.
    expect(commandKind('kd')).to.not.equal('stack');
    expect(commandKind('.ecxr')).to.equal('other');
  });
});
