// Warnings are bounded (300 characters, 200 warnings): a line of megabytes the parser cannot place
// gives the same cut warning as before it was cut early (parse's speed, issue 30), and text that
// merely looks cut is cut again when it is longer than a cut warning can be.
import { expect } from 'chai';
import { createWarningList, MAX_WARNING_CHARS, unplaced } from '../../src/parsers/warning-list.js';

describe('warning list: bounded warnings', () => {
  it('cuts a long unplaced line to the same text as the whole line cut', () => {
    for (const length of [10, MAX_WARNING_CHARS - 19, MAX_WARNING_CHARS - 18, 5_000_000]) {
      const line = `  ${'ntdll!RtlUserThreadStart+0x21 '.repeat(length).slice(0, length)}  `;
      const whole = `unrecognised line: ${line.trim()}`;
      const expected =
        whole.length > MAX_WARNING_CHARS
          ? `${whole.slice(0, MAX_WARNING_CHARS)}… (${whole.length} chars)`
          : whole;
      const warnings = createWarningList();
      warnings.add(unplaced(line));
      expect(warnings.list(), `line of ${length}`).to.deep.equal([expected]);
    }
  });

  it('cuts any other long text, even one that ends as a cut warning does', () => {
    const warnings = createWarningList();
    const forged = `${'x'.repeat(10_000)}… (5 chars)`;
    warnings.add(forged);
    expect(warnings.list()[0]).to.equal(
      `${'x'.repeat(MAX_WARNING_CHARS)}… (${forged.length} chars)`,
    );
  });
});
