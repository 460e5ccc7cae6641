// Retention on the cdb path (Windows, cdb + SOS): what the dotnet-dump path reads from the last
// sample's dump, cdb reads from the live target in ONE more short noninvasive attach after the
// last sample: `.loadby sos`, then `!dumpheap -mt MT -short` for each suspect type and `!gcroot`
// on a handful of its objects (retention.ts picks them and groups the chains; SOS prints the same
// text under cdb as under dotnet-dump). The target is held from the attach to the exit; that time
// is measured and returned, as each sample's is.
import type { DebuggerSession } from '../../engine/debugger-session.js';
import type { SosBatchOutputs } from '../../engine/dialects/index.js';
import { isHarnessError, shortErrorMessage } from '../../errors.js';
import type { RetentionEntry } from '../../report/heap-trend/types.js';
import { SosLoader } from '../watch/sos-loader.js';
import type { AttachSamplerOptions } from './attach-sampler.js';
import { attachNoninvasive } from './noninvasive-attach.js';
import { skippedAll, traceRetention, type RetentionSuspect } from './retention.js';

export interface AttachRetention {
  entries: RetentionEntry[];
  /** How long the retention attach held the target (spawn to exit: an upper bound). */
  suspendedMs: number;
}

// SOS loaded without its managed host (the real engine under Wine with only sos.dll,
// test/fixtures/transcripts/dbgeng/sos-managed-commands-hosting-failed.txt):
// Unrecognized command 'dumpheap' because managed hosting failed or was disabled. See !sethostruntime command for details.
const SOS_REFUSED_RE = /^Unrecognized command .*$/m;

/** Runs SOS commands one by one in the open session, each with `!`, inside `timeoutMs` in all. */
function sessionRunner(session: DebuggerSession) {
  return async (commands: readonly string[], timeoutMs: number): Promise<SosBatchOutputs> => {
    const deadline = performance.now() + timeoutMs;
    const outputs: string[] = [];
    for (const [index, command] of commands.entries()) {
      const left = deadline - performance.now();
      if (left <= 0) {
        return { outputs, stopped: { index, command, text: 'the retention budget ran out' } };
      }
      try {
        const output = (await session.execute(`!${command}`, { timeoutMs: left })).output;
        const refused = SOS_REFUSED_RE.exec(output);
        if (refused !== null) return { outputs, stopped: { index, command, text: refused[0] } };
        outputs.push(output);
      } catch (error) {
        // A timed-out command leaves cdb busy: the rest cannot run in this session.
        if (isHarnessError(error) && error.code === 'TIMEOUT' && outputs.length === 0) throw error;
        return { outputs, stopped: { index, command, text: shortErrorMessage(error) } };
      }
    }
    return { outputs };
  };
}

export async function attachRetention(
  options: AttachSamplerOptions,
  suspects: readonly RetentionSuspect[],
  budgetMs: number,
  objectsPerType?: number,
): Promise<AttachRetention> {
  if (suspects.length === 0) return { entries: [], suspendedMs: 0 };
  const began = performance.now();
  const held = () => Math.round((performance.now() - began) * 10) / 10;
  let session: DebuggerSession;
  try {
    session = await attachNoninvasive(options, { purpose: 'retention' });
  } catch (error) {
    return {
      entries: skippedAll(
        suspects,
        `skipped: the retention attach failed: ${shortErrorMessage(error)}`,
      ),
      suspendedMs: held(),
    };
  }
  let entries: RetentionEntry[];
  try {
    const sos = new SosLoader(session, 30_000);
    if (await sos.tryLoad()) {
      entries = await traceRetention(sessionRunner(session), suspects, {
        budgetMs,
        ...(objectsPerType === undefined ? {} : { objectsPerType }),
      });
    } else {
      const why = sos.lastError ?? '.loadby sos failed';
      entries = skippedAll(suspects, `skipped: SOS unavailable: ${why}`);
    }
  } finally {
    await session.close();
  }
  return { entries, suspendedMs: held() };
}
