// typeperf's CSV, the source of -p/-pl on Windows. The accepted shape is a real published sample
// (this machine runs no Windows): the two CSV rows of `typeperf.exe -sc 1 "\Processor
// Information(_Total)\Processor Frequency"` quoted in
// https://gist.github.com/vadimkantorov/1130603374e1643b97cddc14f17d078c (there as REM lines of a
// batch file). What typeperf prints around them (blank lines, "The command completed
// successfully.", and its text for a counter that does not exist) is recorded nowhere here: those
// cases are tested only as "not a sample row", never with invented typeperf wording.
import { expect } from 'chai';
import {
  parseTypeperfCsv,
  typeperfCounterSource,
} from '../../../../src/engine/dialects/common/typeperf.js';

const PATH = '\\Processor Information(_Total)\\Processor Frequency';
const HEADER =
  '"(PDH-CSV 4.0)","\\\\DELL_DE_VADIM\\Processor Information(_Total)\\Processor Frequency"';
const ROW = '"08/09/2023 13:43:32.695","1358.000000"';

describe('typeperf CSV (-p/-pl on Windows)', () => {
  it('reads the value of the sample row under the PDH-CSV header', () => {
    expect(parseTypeperfCsv(`${HEADER}\n${ROW}\n`, PATH)).to.equal(1358);
    expect(parseTypeperfCsv(`\r\n${HEADER}\r\n${ROW}\r\n`, PATH)).to.equal(1358);
  });

  it('refuses output with no header or no sample row, quoting what it got', () => {
    expect(() => parseTypeperfCsv(ROW, PATH)).to.throw(/typeperf gave no value for/);
    expect(() => parseTypeperfCsv(HEADER, PATH)).to.throw(/typeperf gave no value for/);
    expect(() => parseTypeperfCsv('', PATH)).to.throw(/typeperf gave no value for "\\\\Processor/);
  });

  it('refuses a sample row whose value is not a number or whose quoting is broken', () => {
    expect(() => parseTypeperfCsv(`${HEADER}\n"08/09/2023 13:43:32.695"," "`, PATH)).to.throw(
      /no value/,
    );
    expect(() => parseTypeperfCsv(`${HEADER}\n"08/09/2023 13:43:32.695","13`, PATH)).to.throw(
      /no value/,
    );
  });

  it('has no counters to read on Linux (Wine ships no typeperf): refused with the reason', () => {
    expect(() => typeperfCounterSource(PATH, { platform: 'linux' })).to.throw(
      /performance counters are Windows' PDH; this host \(linux\) has none, and Wine has no typeperf\.exe/,
    );
  });
});
