import { expect } from 'chai';
import { parsePrintException } from '../../src/parsers/print-exception.js';
import type { ManagedException, PrintExceptionRecord } from '../../src/parsers/records.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody, untestedTranscripts } from './heap-sos-umdh-transcripts.js';

function parse(file: string): PrintExceptionRecord {
  const record = parsePrintException(transcriptBody(file));
  assertValid('printException', record);
  return record;
}

function only(record: PrintExceptionRecord, index: number): ManagedException {
  const exception = record.exceptions[index];
  if (!exception) throw new Error(`no exception #${index}`);
  return exception;
}

describe('parsePrintException (!pe, !PrintException, pe)', () => {
  it('reads the dotnet-dump spelling with an inner exception and -lines source locations', () => {
    const record = parse('pe/dotnet-dump-coreclr-linux-inner-exception-lines.txt');
    expect(record.noException).to.equal(false);
    expect(record.exceptions).to.have.length(1);
    const e = only(record, 0);
    expect(e.address).to.equal('0x7fb18c038590');
    expect(e.type).to.equal('System.Reflection.TargetInvocationException');
    expect(e.message).to.equal('Exception has been thrown by the target of an invocation.');
    expect(e.innerException).to.deep.equal({ type: 'System.Exception', address: '0x7fb18c038368' });
    expect(e.hresult).to.equal('0x80131604');
    expect(e.stackTraceString).to.equal(null);
    expect(e.stack).to.have.length(6);
    expect(e.stack[0]).to.include({ sp: '0x7ffd28b42dd0', ip: '0x0' });
    expect(e.stack[1]).to.deep.equal({
      sp: '0x7ffd28b42dd0',
      ip: '0x7fb1b1334f67',
      function:
        'System.Private.CoreLib.dll!System.Reflection.RuntimeMethodInfo.Invoke(System.Object, System.Reflection.BindingFlags, System.Reflection.Binder, System.Object[], System.Globalization.CultureInfo)+0xa7',
      source: '/root/coreclr/src/mscorlib/src/System/Reflection/RuntimeMethodInfo.cs @ 472',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('lists the outer exception first, then the nested one with its inner exception', () => {
    const record = parse('pe/eddynaka-netfx48-x86-nested-full-with-inner.txt');
    expect(record.exceptions.map((e) => e.type)).to.deep.equal([
      'System.UnauthorizedAccessException',
      'System.Net.Http.HttpRequestException',
    ]);
    const outer = only(record, 0);
    expect(outer.address).to.equal('0x2653c80');
    expect(outer.nested).to.equal(undefined);
    expect(outer.innerException).to.equal(null);
    expect(outer.hresult).to.equal('0x80070005');
    expect(outer.stack).to.have.length(8);
    const nested = only(record, 1);
    expect(nested.nested).to.equal(true);
    expect(nested.address).to.equal('0x2647740');
    expect(nested.innerException).to.deep.equal({
      type: 'System.Net.WebException',
      address: '0xa902fae5',
    });
    expect(nested.hresult).to.equal('0x80131500');
    expect(nested.stack).to.have.length(5);
    expect(nested.stack[4]).to.deep.equal({
      sp: '0x4ff024',
      ip: '0xb80889',
      function: 'CrashingApplication!CrashingApplication.Program.Main(System.String[])+0x41',
    });
    expect(record.warnings).to.deep.equal([]);
  });

  it('notes "There are nested exceptions on this thread" when -nested was not given', () => {
    const record = parse('pe/eddynaka-netfx48-x86-nested-notice.txt');
    expect(record.exceptions).to.have.length(1);
    expect(record.nestedExceptionsOmitted).to.equal(true);
    expect(only(record, 0).message).to.equal(
      "Access to the path 'C:\\Windows\\private.txt' is denied.",
    );
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the simple .NET Framework x86 exception with its one frame', () => {
    const record = parse('pe/eddynaka-netfx48-x86-simple.txt');
    const e = only(record, 0);
    expect(e).to.include({ address: '0x2af41a4', type: 'System.Exception', hresult: '0x80131500' });
    expect(e.message).to.equal('crashing my application');
    expect(e.stack).to.deep.equal([
      {
        sp: '0xaff1f4',
        ip: '0x113089a',
        function: 'CrashingApplication!CrashingApplication.Program.Main(System.String[])+0x52',
      },
    ]);
    expect(record.nestedExceptionsOmitted).to.equal(undefined);
  });

  it('reads `<none>` message and stack, and leaves the author`s "..." elision in warnings', () => {
    const record = parse('pe/eddynaka-netfx48-x86-stackoverflow-nested-elided.txt');
    expect(record.exceptions).to.have.length(2);
    const overflow = only(record, 0);
    expect(overflow.type).to.equal('System.StackOverflowException');
    expect(overflow.message).to.equal(null);
    expect(overflow.stack).to.deep.equal([]);
    expect(overflow.hresult).to.equal('0x800703e9');
    const io = only(record, 1);
    expect(io).to.include({
      type: 'System.IO.IOException',
      message: 'Not Authorized',
      nested: true,
    });
    expect(io.stack[0]?.ip).to.equal('0x18f0972');
    expect(record.warnings).to.deep.equal(Array(3).fill('unrecognised line: ...'));
  });

  it('reads an x64 exception whose generated stack is `<none>`', () => {
    const record = parse('pe/lowleveldesign-netfx-x64-argumentexception-no-stack.txt');
    const e = only(record, 0);
    expect(e.address).to.equal('0x2253438');
    expect(e.type).to.equal('System.ArgumentException');
    expect(e.message).to.equal('v should not be null');
    expect(e.stack).to.deep.equal([]);
    expect(e.hresult).to.equal('0x80070057');
    expect(record.warnings).to.deep.equal([]);
  });

  it('sets noException for "There is no current managed exception on this thread"', () => {
    const record = parse('pe/net4-no-current-managed-exception.txt');
    expect(record.noException).to.equal(true);
    expect(record.exceptions).to.deep.equal([]);
    expect(record.warnings).to.deep.equal([]);
  });

  it('has a test for every pe transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'pe')).to.deep.equal([]);
  });
});
