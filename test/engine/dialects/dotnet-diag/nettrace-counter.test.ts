// The nettrace framing counter on bad input (a real stream is counted in ipc-client.test.ts,
// against the runtime): it waits for more bytes rather than guess, and refuses what is not nettrace.
import { expect } from 'chai';
import {
  countEvents,
  NettraceCounter,
  NettraceFormatError,
} from '../../../../src/engine/dialects/dotnet-diag/nettrace-counter.js';

describe('nettrace counter: bad and partial input', () => {
  it('a stream cut inside its header waits for more bytes', () => {
    const counter = new NettraceCounter();
    counter.push(Buffer.from('Nettr', 'latin1'));
    expect(counter.counts).to.include({ bytes: 5, events: 0, ended: false });
  });

  it('a stream that is not nettrace is refused, naming how it starts', () => {
    const counter = new NettraceCounter();
    expect(() =>
      counter.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\nhello world, this is no trace', 'latin1')),
    ).to.throw(NettraceFormatError, /not a nettrace stream \(starts "HTTP\/1.1"\)/);
  });

  it('an event block whose last event runs past its end is refused', () => {
    // header size 20, flags 1 (compressed headers); one event: flags 0x80 (data length), timestamp
    // delta 1, payload length 100, but no payload bytes follow.
    const block = Buffer.alloc(20 + 3);
    block.writeUInt16LE(20, 0);
    block.writeUInt16LE(1, 2);
    block.set([0x80, 0x01, 100], 20);
    expect(() => countEvents(block)).to.throw(NettraceFormatError, /past the block/);
  });
});
