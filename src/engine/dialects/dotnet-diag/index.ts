// dotnet-diag: the .NET runtime's own diagnostics IPC channel, through cdbh-diag (the .NET helper
// in native/dotnet-diag, built by scripts/build-dotnet-diag.sh). It is no debugger: it cannot stop
// or resume a thread, so it is not a Dialect of the engine registry (dialects/index.ts), which
// drives debuggers over a terminal. It is the one client of that channel for every workflow that
// needs it: watch on Linux .NET (exceptions + dumps) and heap-trend's counters tier.
//
// Why a .NET helper rather than a TypeScript client of the protocol: the channel's framing is small
// (ipc-protocol.md), but the event stream is nettrace (NetTrace V5, and V6 from .NET 10), whose
// metadata/stack/event blocks, compressed headers and per-runtime changes TraceEvent already reads;
// EventCounters payloads are self-describing dictionaries. Measured here (bench/watch-dotnet.ts)
// the helper logs the storm rate with the target's own throughput kept, so a second parser of the
// format would buy nothing but its upkeep. The cost is one .NET process per session.
export {
  DiagSession,
  openCounterStream,
  openExceptionStream,
  type CounterStreamOptions,
  type ExceptionStreamOptions,
} from './client.js';
export { NoDiagnosticsChannelError, type DiagOpenOptions } from './helper-process.js';
export { probeDotnet, writeDotnetDump } from './one-shot.js';
export { findDiagHelper, locateDiagHelper } from './locate.js';
export {
  dotnetProcessMatches,
  listDotnetDiagProcesses,
  publishedPids,
  type DotnetProcess,
} from './processes.js';
export type { DiagCounter, DiagDump, DiagEnd, DiagException, DiagReady } from './protocol.js';
