// capWarnings and WarningLog (src/warning-log.ts): a few different warnings come back as they
// are; repeats go; past five of one kind (numbers aside) the rest are counted in one line.
import { expect } from 'chai';
import { capWarnings, WarningLog } from '../src/warning-log.js';

const kept = (messages: string[]) => {
  const log = new WarningLog();
  log.addAll(messages);
  return log.list();
};

describe('capWarnings (src/warning-log.ts)', () => {
  it('keeps a few different warnings as they are, in order, in a new list', () => {
    const messages = ['stack walk: scan ended at 0x10', 'ModuleList: module 3 has no name'];
    const capped = capWarnings(messages);
    expect(capped).to.deep.equal(messages);
    expect(capped).to.not.equal(messages);
  });

  it('drops an exact repeat among a few', () => {
    expect(capWarnings(['a 1', 'b', 'a 1'])).to.deep.equal(['a 1', 'b']);
  });

  it('counts what is past five of a kind, the way WarningLog does for any list', () => {
    const many = Array.from(
      { length: 9 },
      (_, i) => `module ${i}: string RVA 0x${i}0 is past the end`,
    );
    expect(capWarnings(many)).to.deep.equal([
      ...many.slice(0, 5),
      '(4 more like: module 0: string RVA 0x00 is past the end)',
    ]);
    for (const list of [
      [],
      ['x'],
      ['x', 'x'],
      many.slice(0, 5),
      many.slice(0, 6),
      [...many, 'x'],
    ]) {
      expect(capWarnings(list)).to.deep.equal(kept(list));
    }
  });

  it('keeps fewer when the limits are lower, naming the first of a kind cut', () => {
    expect(capWarnings(['a', 'b', 'c'], { total: 2 })).to.deep.equal([
      'a',
      'b',
      '(1 more warnings of other kinds)',
    ]);
    expect(capWarnings(['m 1', 'm 2'], { perKind: 1 })).to.deep.equal([
      'm 1',
      '(1 more like: m 1)',
    ]);
  });
});
