// One short noninvasive attach to the sampled process: every cdb sample and the retention attach
// after the last sample open their session the same way (the target is only suspended, never
// broken into, and is left running when the session quits).
import { DebuggerSession } from '../../engine/debugger-session.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import type { AttachSamplerOptions } from './attach-sampler.js';
import type { DebuggerUse } from './sampler.js';

export function attachNoninvasive(
  options: AttachSamplerOptions,
  use: DebuggerUse,
  signal?: AbortSignal,
): Promise<DebuggerSession> {
  const prefix = options.debuggerCommandFor?.(use);
  return DebuggerSession.start({
    dialect: options.engine,
    target: { kind: 'attach', pid: options.pid, noninvasive: true },
    ...debuggerLaunchOptions({ ...options, debuggerCommandPrefix: prefix }),
    ...(signal === undefined ? {} : { signal }),
    startTimeoutMs: options.startTimeoutMs ?? 60_000,
    commandTimeoutMs: options.commandTimeoutMs ?? 60_000,
  });
}
