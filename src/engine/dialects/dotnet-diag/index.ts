// dotnet-diag: the .NET runtime's own diagnostics IPC channel, through cdbh-diag (the .NET helper
// in native/dotnet-diag, built by scripts/build-dotnet-diag.sh). It is no debugger: it cannot stop
// or resume a thread, so it is not a Dialect of the engine registry (dialects/index.ts), which
// drives debuggers over a terminal. It is the one client of that channel for every workflow that
// needs it: watch on Linux .NET (exceptions + dumps) and heap-trend's counters tier.
//
// Why a .NET helper rather than a TypeScript client of the protocol: the channel's framing is small
// (ipc-protocol.md; ipc-client.ts here is such a client, kept to measure it), but the event stream
// is nettrace (NetTrace V5, and V6 from .NET 10), whose metadata/stack/event blocks, payloads and
// per-runtime changes TraceEvent already reads; EventCounters payloads are self-describing
// dictionaries. bench/dotnet-diag-clients.ts measures both (docs/watch-dotnet-linux.md): the
// TypeScript framing reader starts sooner and costs less CPU per event, but it decodes nothing;
// what the target pays is the runtime's and the same for both. The cost is one .NET process per
// session.
export {
  DiagSession,
  openCounterStream,
  openExceptionStream,
  type CounterStreamOptions,
  type ExceptionStreamOptions,
} from './client.js';
export { NoDiagnosticsChannelError, type DiagOpenOptions } from './helper-process.js';
export { probeDotnet, writeDotnetDump } from './one-shot.js';
export {
  ipcProcessInfo,
  startIpcTrace,
  type IpcProcessInfo,
  type IpcProvider,
  type IpcTrace,
} from './ipc-client.js';
export { findDiagHelper, locateDiagHelper } from './locate.js';
export {
  dotnetProcessMatches,
  listDotnetDiagProcesses,
  publishedPids,
  type DotnetProcess,
} from './processes.js';
export type { DiagCounter, DiagDump, DiagEnd, DiagException, DiagReady } from './protocol.js';
