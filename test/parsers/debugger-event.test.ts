import { expect } from 'chai';
import { findDebuggerEvents, parseDebuggerEvent } from '../../src/parsers/debugger-event.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcript, winedbgFixture } from './transcripts.js';

describe('debugger events (cdb banners)', () => {
  it('reads the CLR type and message of the .NET 8 banners, first and second chance', () => {
    const events = findDebuggerEvents(
      transcript('events/clr-e0434352-first-and-second-chance-net8-x64.txt').body,
    );
    expect(events.map((e) => e.code)).to.deep.equal([
      '0x04242420',
      '0xe0434352',
      '0xe0434352',
      '0xe0434352',
    ]);
    expect(events[0]?.description).to.equal('Unknown exception');
    const [, second, third, fourth] = events;
    expect(second?.clrExceptionType).to.equal(undefined);
    expect(third).to.include({
      processId: '0x5fc4',
      threadId: '0x6320',
      chance: 'first',
      clrExceptionType: 'System.FormatException',
      clrExceptionMessage: 'One of the identified items was in an invalid format.',
    });
    expect(fourth).to.include({
      chance: 'second',
      clrExceptionType: 'System.AggregateException',
      clrExceptionMessage: 'One or more errors occurred.',
    });
    for (const e of events) assertValid('debuggerEvent', e);
  });

  it('reads old NTSD banners without (pid.tid)', () => {
    const events = findDebuggerEvents(
      transcript('events/ntsd-pageheap-av-first-and-second-chance-x86.txt').body,
    );
    expect(events.map((e) => [e.code, e.chance, e.processId])).to.deep.equal([
      ['0xc0000005', 'first', null],
      ['0xc0000005', 'second', null],
    ]);
  });

  it('gives chance null for a dump\'s "first/second chance not available" event', () => {
    const [event] = findDebuggerEvents(
      transcript('startup/cdb612-dump-netcore2-comment-wake-debugger-loadby-fail.txt').body,
    );
    expect(event).to.include({ code: '0x80000007', description: 'Wake debugger', chance: null });
  });

  it('finds C++ EH and divide-by-zero banners in WOW64 output, in order', () => {
    const events = findDebuggerEvents(
      transcript('events/clusterfuzz-cpp-eh-e06d7363-then-div0-c0000094-wow64.txt').body,
    );
    expect(events.map((e) => e.code)).to.deep.equal(['0xe06d7363', '0xe06d7363', '0xc0000094']);
  });

  it('finds all 16 events interleaved with application output (net4, no SOS)', () => {
    const events = findDebuggerEvents(
      transcript('events/net4-unknown-exception-e0434352-before-sos-many.txt').body,
    );
    expect(events).to.have.length(16);
    expect(events[0]?.code).to.equal('0x80000003');
  });

  it('does not take a .lastevent line for a new event', () => {
    const text = transcript('misc/lastevent-stack-overflow-second-chance-with-time.txt').body;
    expect(findDebuggerEvents(text)).to.deep.equal([]);
  });

  it('parseDebuggerEvent never throws and warns when there is no banner', () => {
    const record = parseDebuggerEvent('nothing here');
    expect(record.code).to.equal(null);
    expect(record.warnings).to.have.length(1);
    assertValid('debuggerEvent', record);
  });
});

describe('debugger events (winedbg)', () => {
  it('maps a real unhandled page fault to 0xc0000005 with access type and address', () => {
    const [event] = findDebuggerEvents(
      winedbgFixture('av-unhandled-bt-info-share-minidump.txt').body,
      'winedbg',
    );
    expect(event).to.deep.equal({
      processId: null,
      threadId: null,
      description: 'page fault on write access to 0x0000000000000010',
      code: '0xc0000005',
      chance: 'second',
      warnings: [],
      address: '0x14000154a',
      accessType: 'write',
      accessAddress: '0x10',
    });
  });

  it('maps real first-chance C++, raw 0x20474343 and divide-by-zero lines to codes', () => {
    const events = findDebuggerEvents(
      winedbgFixture('attach-raise-first-chance-cxx-gcc-div0.txt').body,
      'winedbg',
    );
    const codes = events.map((e) => [e.code, e.chance]);
    expect(codes).to.deep.include.members([
      ['0xe06d7363', 'first'],
      ['0x20474343', 'first'],
      ['0xc0000094', 'first'],
    ]);
  });

  it('reads an execute fault whose address has no 0x prefix', () => {
    const [event] = findDebuggerEvents(
      winedbgFixture('thrower-exec-fault-minidump-no-process.txt').body,
    );
    expect(event).to.include({ accessType: 'execute', accessAddress: '0x0', address: '0x0' });
  });

  it("maps every exception name winedbg prints (Wine's programs/winedbg/info.c, info_win32_exception)", () => {
    const lines: [string, string][] = [
      ['First chance exception: breakpoint in 64-bit code (0x000001700555f5).', '0x80000003'],
      ['First chance exception: single step in 64-bit code (0x000001700555f5).', '0x80000004'],
      ['First chance exception: divide by zero in 64-bit code (0x0000007b013d7e).', '0xc0000094'],
      ['First chance exception: overflow in 64-bit code (0x0000007b013d7e).', '0xc0000095'],
      ['First chance exception: illegal instruction in 64-bit code (0x1).', '0xc000001d'],
      ['First chance exception: privileged instruction in 64-bit code (0x1).', '0xc0000096'],
      ['First chance exception: stack overflow in 64-bit code (0x1).', '0xc00000fd'],
      ['First chance exception: 0xe0434f4d in 64-bit code (0x0000007b013d7e).', '0xe0434f4d'],
      [
        'First chance exception: C++ exception(object = 0x0000000000001111, type = 0x0000000000002222) in 64-bit code (0x1).',
        '0xe06d7363',
      ],
    ];
    for (const [line, code] of lines) {
      expect(findDebuggerEvents(line, 'winedbg')[0]?.code, line).to.equal(code);
    }
  });
});
