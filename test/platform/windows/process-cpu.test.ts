// Get-Process's answer as the Windows CPU source reads it.
import { expect } from 'chai';
import { cpuMsFromPowershell } from '../../../src/platform/windows/process-cpu.js';
import { TargetError } from '../../../src/errors.js';

describe('Windows CPU time from powershell', () => {
  const alive = () => true;
  it('reads TotalMilliseconds', () => {
    expect(
      cpuMsFromPowershell(7, { exitCode: 0, stdout: '1234.5625\r\n', stderr: '' }, alive),
    ).to.equal(1234.5625);
  });

  it('never reads an empty answer as 0 ms (Wine’s powershell stub prints nothing)', () => {
    expect(() => cpuMsFromPowershell(7, { exitCode: 0, stdout: '', stderr: '' }, alive))
      .to.throw(TargetError)
      .with.property('message')
      .that.matches(/printed nothing/);
  });

  it('is "gone" (null) when the process has ended', () => {
    const answer = {
      exitCode: 1,
      stdout: '',
      stderr: 'Get-Process : Cannot find a process with the process identifier 7.',
    };
    expect(cpuMsFromPowershell(7, answer, () => false)).to.equal(null);
  });
});
