// A minimal TypeScript client of the runtime's diagnostics IPC protocol (ipc-protocol.md:
// https://github.com/dotnet/diagnostics/blob/main/documentation/design-docs/ipc-protocol.md),
// beside cdbh-diag: ProcessInfo, and an EventPipe session (CollectTracing2) whose nettrace stream
// is counted (nettrace-counter.ts), not decoded. It exists to measure what a client without .NET
// would cost and save (bench/dotnet-diag-clients.ts); watch and heap-trend use cdbh-diag, and
// docs/watch-dotnet-linux.md says why with the figures.
//
// A message is a 20-byte header, "DOTNET_IPC_V1\0", uint16 size (header included), uint8 command
// set, uint8 command id, uint16 reserved, then the payload; integers little-endian, strings uint32
// length in UTF-16 units (the NUL included) and the UTF-16LE text. The answer's command set is
// 0xFF (server): id 0x00 OK, 0xFF error (payload: uint32 HRESULT).
import { connect, type Socket } from 'node:net';
import { waitWithDeadline } from '../../deadline.js';
import { AbortedError, CommandFailedError, TimeoutError } from '../../../errors.js';
import { NoDiagnosticsChannelError } from './helper-process.js';
import { NettraceCounter, type NettraceCounts } from './nettrace-counter.js';
import { diagnosticSocket } from './processes.js';

const MAGIC = Buffer.from('DOTNET_IPC_V1\0', 'latin1');
const HEADER_BYTES = 20;
const SERVER = 0xff;
const OK = 0x00;
const EVENTPIPE = 0x02;
const STOP_TRACING = 0x01;
const COLLECT_TRACING_2 = 0x03;
const PROCESS = 0x04;
const PROCESS_INFO = 0x00;
const FORMAT_NETTRACE = 1;
const MAX_REPLY_BYTES = 1024 * 1024;

export interface IpcOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface IpcProcessInfo {
  pid: number;
  runtimeCookie: string;
  commandLine: string;
  os: string;
  arch: string;
}

export interface IpcProvider {
  name: string;
  keywords: bigint;
  /** 1 critical … 5 verbose. */
  level: number;
  /** `key=value;key=value` (EventCounterIntervalSec=1), or empty. */
  filter?: string;
}

function ipcString(text: string): Buffer {
  if (text === '') return Buffer.alloc(4);
  const body = Buffer.from(`${text}\0`, 'utf16le');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length / 2);
  return Buffer.concat([length, body]);
}

function message(commandSet: number, commandId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt16LE(HEADER_BYTES + payload.length, 14);
  header.writeUInt8(commandSet, 16);
  header.writeUInt8(commandId, 17);
  return Buffer.concat([header, payload]);
}

/** Reads UTF-16 strings and integers from a reply payload, bounded by it. */
class PayloadReader {
  at = 0;
  constructor(private readonly b: Buffer) {}
  u64(): bigint {
    const v = this.b.readBigUInt64LE(this.at);
    this.at += 8;
    return v;
  }
  bytes(n: number): Buffer {
    if (this.at + n > this.b.length) throw new CommandFailedError('IPC reply cut short');
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  string(): string {
    const units = this.bytes(4).readUInt32LE(0);
    return this.bytes(units * 2)
      .toString('utf16le')
      .replace(/\0$/, '');
  }
}

/**
 * One connection: sends `request`, resolves with the reply's payload once its header and payload
 * are in, and leaves the socket open (a tracing session's stream follows on it). Bytes past the
 * reply are handed back with it.
 */
async function exchange(
  pid: number,
  request: Buffer,
  options: IpcOptions,
): Promise<{ socket: Socket; payload: Buffer; rest: Buffer }> {
  const path = diagnosticSocket(pid, options.env);
  if (path === undefined) {
    throw new NoDiagnosticsChannelError(
      'no-channel',
      `pid ${pid} publishes no diagnostics socket in ${options.env?.['TMPDIR'] ?? '/tmp'}`,
    );
  }
  const socket = connect(path);
  let received = Buffer.alloc(0);
  const reply = new Promise<{ payload: Buffer; rest: Buffer }>((resolve, reject) => {
    socket.on('error', (e) => reject(new CommandFailedError(`IPC ${path}: ${e.message}`)));
    socket.on('close', () => reject(new CommandFailedError(`IPC ${path}: closed before a reply`)));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      if (received.length < HEADER_BYTES) return;
      if (!received.subarray(0, MAGIC.length).equals(MAGIC)) {
        reject(new CommandFailedError('IPC reply without the DOTNET_IPC_V1 magic'));
        return;
      }
      const size = received.readUInt16LE(14);
      if (size < HEADER_BYTES || size > MAX_REPLY_BYTES) {
        reject(new CommandFailedError(`IPC reply of ${size} bytes`));
        return;
      }
      if (received.length < size) return;
      socket.off('data', onData);
      const payload = received.subarray(HEADER_BYTES, size);
      if (received[16] !== SERVER || received[17] !== OK) {
        const hresult = payload.length >= 4 ? payload.readUInt32LE(0).toString(16) : '?';
        reject(new CommandFailedError(`the runtime refused the command: HRESULT 0x${hresult}`));
        return;
      }
      resolve({ payload, rest: received.subarray(size) });
    };
    socket.on('data', onData);
  });
  socket.write(request);
  const timeoutMs = options.timeoutMs ?? 10_000;
  try {
    const got = await waitWithDeadline(reply, {
      timeoutMs,
      signal: options.signal,
      onTimeout: () => new TimeoutError(`IPC reply from pid ${pid}`, timeoutMs),
      onAbort: () => new AbortedError(`aborted while asking pid ${pid}`),
    });
    socket.removeAllListeners('close');
    socket.removeAllListeners('error');
    return { socket, ...got };
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** ProcessInfo (command set 0x04, id 0x00): pid, runtime cookie, command line, OS, architecture. */
export async function ipcProcessInfo(
  pid: number,
  options: IpcOptions = {},
): Promise<IpcProcessInfo> {
  const { socket, payload } = await exchange(
    pid,
    message(PROCESS, PROCESS_INFO, Buffer.alloc(0)),
    options,
  );
  socket.destroy();
  const r = new PayloadReader(payload);
  const processId = Number(r.u64());
  const cookie = r.bytes(16).toString('hex');
  return {
    pid: processId,
    runtimeCookie: cookie,
    commandLine: r.string(),
    os: r.string(),
    arch: r.string(),
  };
}

export interface IpcTrace {
  sessionId: bigint;
  /** What the stream carried so far (live: it grows while the session runs). */
  readonly counts: NettraceCounts;
  /** Settles when the runtime ends the stream (after stop(), or the target's exit). */
  readonly ended: Promise<NettraceCounts>;
  /** StopTracing on a second connection; resolves with the final counts once the stream ends. */
  stop(options?: IpcOptions): Promise<NettraceCounts>;
}

/** CollectTracing2 (0x02, 0x03): an EventPipe session whose nettrace stream is counted. */
export async function startIpcTrace(
  pid: number,
  providers: readonly IpcProvider[],
  options: IpcOptions & { bufferMb?: number; rundown?: boolean } = {},
): Promise<IpcTrace> {
  const head = Buffer.alloc(13);
  head.writeUInt32LE(options.bufferMb ?? 256, 0);
  head.writeUInt32LE(FORMAT_NETTRACE, 4);
  head.writeUInt8(options.rundown === true ? 1 : 0, 8);
  head.writeUInt32LE(providers.length, 9);
  const configs = providers.map((p) => {
    const fixed = Buffer.alloc(12);
    fixed.writeBigUInt64LE(p.keywords, 0);
    fixed.writeUInt32LE(p.level, 8);
    return Buffer.concat([fixed, ipcString(p.name), ipcString(p.filter ?? '')]);
  });
  const request = message(EVENTPIPE, COLLECT_TRACING_2, Buffer.concat([head, ...configs]));
  const { socket, payload, rest } = await exchange(pid, request, options);
  const sessionId = new PayloadReader(payload).u64();
  const counter = new NettraceCounter();
  let failure: Error | null = null;
  const take = (chunk: Buffer): void => {
    if (failure !== null) return;
    try {
      counter.push(chunk);
    } catch (error) {
      failure = error as Error;
      socket.destroy();
    }
  };
  const ended = new Promise<NettraceCounts>((resolve, reject) => {
    socket.on('data', take);
    socket.on('error', () => undefined);
    socket.on('close', () => (failure === null ? resolve(counter.counts) : reject(failure)));
  });
  if (rest.length > 0) take(rest);
  return {
    sessionId,
    counts: counter.counts,
    ended,
    async stop(stopOptions: IpcOptions = {}) {
      const id = Buffer.alloc(8);
      id.writeBigUInt64LE(sessionId);
      const opts = { ...options, ...stopOptions };
      const stopped = await exchange(pid, message(EVENTPIPE, STOP_TRACING, id), opts);
      stopped.socket.destroy();
      const timeoutMs = opts.timeoutMs ?? 10_000;
      try {
        return await waitWithDeadline(ended, {
          timeoutMs,
          onTimeout: () =>
            new TimeoutError(`the trace stream of pid ${pid} did not end`, timeoutMs),
          onAbort: () => new AbortedError('aborted'),
        });
      } finally {
        socket.destroy();
      }
    },
  };
}
