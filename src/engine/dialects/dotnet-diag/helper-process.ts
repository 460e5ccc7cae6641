// What every run of cdbh-diag shares, streaming (client.ts) or one-shot (one-shot.ts): the options
// that find and aim it, the environment it runs in, and the typed error an `error` line stands for.
import { CommandFailedError, DebuggerNotFoundError, TargetError } from '../../../errors.js';
import type { DiagErrorLine } from './protocol.js';

/**
 * The process has no usable .NET diagnostics channel: not a .NET process, a runtime older than
 * .NET Core 3.0, or diagnostics turned off. Exit code 3, like a missing debugger: nothing here can
 * watch it.
 */
export class NoDiagnosticsChannelError extends DebuggerNotFoundError {
  constructor(
    readonly reason: 'not-dotnet' | 'no-channel' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

export interface DiagOpenOptions {
  pid: number;
  env?: NodeJS.ProcessEnv;
  /** The helper (`--debugger`); else found by locate.ts. */
  helperPath?: string;
  signal?: AbortSignal;
  /** From spawn to the `ready` line (default 60 s: the first run JIT-compiles the helper). */
  readyTimeoutMs?: number;
  /** Resume a runtime that waits at startup (DOTNET_DefaultDiagnosticPortSuspend=1) once on. */
  resume?: boolean;
}

/** The error a helper's `error` line stands for. */
export function diagError(line: DiagErrorLine, pid: number): Error {
  switch (line.code) {
    case 'NOT_DOTNET':
      return new NoDiagnosticsChannelError('not-dotnet', line.message);
    case 'NO_CHANNEL':
      return new NoDiagnosticsChannelError('no-channel', line.message);
    case 'UNSUPPORTED':
      return new NoDiagnosticsChannelError('unsupported', line.message);
    case 'NO_PROCESS':
      return new TargetError('not-found', `pid ${pid}: ${line.message}`);
    default:
      return new CommandFailedError(`cdbh-diag: ${line.message}`);
  }
}

export /**
 * The helper's own environment: TMPDIR as given (it finds the target's socket there), and its own
 * runtime's diagnostics channel off. Otherwise the helper is itself a .NET process that `-w NAME`
 * could list, and a helper ended by a signal leaves `dotnet-diagnostic-PID-…-socket` and
 * `clr-debug-pipe-PID-…` files in TMPDIR
 * (https://learn.microsoft.com/dotnet/core/diagnostics/diagnostic-port: DOTNET_EnableDiagnostics).
 */
function helperEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  return {
    ...(env ?? process.env),
    DOTNET_CLI_TELEMETRY_OPTOUT: '1',
    DOTNET_EnableDiagnostics: '0',
  };
}
