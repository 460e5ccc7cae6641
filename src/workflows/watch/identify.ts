// What stopped the target, asked of the debugger rather than scraped from banners (a banner can be
// cut by the target's own console output): the dialect says which commands to ask. cdb:
// `.lastevent` + `.exr -1` + a short stack, and for CLR exceptions SOS `!pe` + `!clrstack`;
// winedbg has neither, so its stop line (the same text `info exception` repeats) + `bt`.
// A failing step adds a note and identification goes on: a half-identified exception is still
// logged, never dropped.
import type { DebuggerSession } from '../../engine/debugger-session.js';
import { errorMessage, isHarnessError } from '../../errors.js';
import type { StopEvent } from '../../engine/dialects/common/stop-event.js';
import { parseClrStack } from '../../parsers/clr-stack.js';
import { parseExceptionRecord } from '../../parsers/exception-record.js';
import { parsePrintException } from '../../parsers/print-exception.js';
import { parseStack } from '../../parsers/stack.js';
import { isClrCode } from './exception-codes.js';
import type { SosLoader } from './sos-loader.js';
import type { WatchExceptionLine } from './watch-records.js';

/**
 * The fields of an exceptions.ndjson line, as identification finds them (the line's types, so the
 * two cannot drift apart). `frames`: managed frames for CLR exceptions when SOS answered.
 */
/** The exception-line fields identification fills (all but `description` and `frames`). */
export type IdentifiedLineFields = Pick<
  WatchExceptionLine,
  | 'code'
  | 'chance'
  | 'threadId'
  | 'address'
  | 'parameters'
  | 'clrType'
  | 'clrMessage'
  | 'hresult'
  | 'innerExceptions'
>;

export interface IdentifiedException
  extends IdentifiedLineFields, Pick<WatchExceptionLine, 'frames'> {
  /** null when the debugger gave none; the line then leaves `description` out. */
  description: string | null;
  notes: string[];
}

export interface IdentifyOptions {
  /** How many top frames to keep. */
  frames: number;
  timeoutMs: number;
  /** cdb: run SOS for CLR exceptions (null: do not). */
  sos: SosLoader | null;
  /** Skip the stack when no filter or signature needs it (never, today: signatures use frames). */
  stack?: boolean;
}

/** The cheap part: what the stop text alone says (used for pass-through decisions). */
export function fromStop(stop: StopEvent): IdentifiedException {
  const event = stop.event;
  const out: IdentifiedException = {
    code: stop.code ?? event?.code ?? null,
    chance: stop.chance ?? event?.chance ?? null,
    description: event?.description ?? null,
    frames: [],
    notes: [],
  };
  if (event?.threadId != null) out.threadId = event.threadId;
  if (event?.address !== undefined) out.address = event.address;
  if (event?.clrExceptionType !== undefined) out.clrType = event.clrExceptionType;
  if (event?.clrExceptionMessage !== undefined) out.clrMessage = event.clrExceptionMessage;
  return out;
}

async function run(
  session: DebuggerSession,
  command: string,
  timeoutMs: number,
  notes: string[],
): Promise<string | null> {
  try {
    return (await session.execute(command, { timeoutMs })).output;
  } catch (error) {
    notes.push(`${command}: ${errorMessage(error).split('\n')[0] ?? 'failed'}`);
    // A dead debugger cannot answer anything else: let the caller end the session.
    if (isHarnessError(error) && error.code === 'DEBUGGER_EXITED') throw error;
    return null;
  }
}

/** Asks the debugger (the dialect's commands) what stopped the target. */
export async function identifyStop(
  session: DebuggerSession,
  stop: StopEvent,
  options: IdentifyOptions,
): Promise<IdentifiedException> {
  const { dialect } = session;
  const out = fromStop(stop);
  await readLastEvent(session, out, options);
  const exrCommand = dialect.identify.exceptionRecordCommand;
  if (exrCommand !== undefined) {
    const exr = await run(session, exrCommand, options.timeoutMs, out.notes);
    if (exr !== null) {
      const record = parseExceptionRecord(exr);
      if (record.code !== null) out.code = record.code;
      if (record.address !== null) out.address = record.address;
      if (record.parameters.length > 0) out.parameters = record.parameters;
    }
  }
  if (options.stack !== false) {
    const command = dialect.identify.stackCommand(options.frames);
    const k = await run(session, command, options.timeoutMs, out.notes);
    if (k !== null) out.frames = topFrames(k, options.frames);
  }
  if (isClrCode(out.code)) {
    if (options.sos !== null) await askSos(session, options.sos, out, options);
    else if (!dialect.abilities.sos) {
      out.notes.push(`${dialect.name} has no SOS: CLR type and message unknown`);
    }
  }
  return out;
}

async function readLastEvent(
  session: DebuggerSession,
  out: IdentifiedException,
  options: IdentifyOptions,
): Promise<void> {
  const { dialect } = session;
  // Without the event line in the stop text, the debugger repeats it on request.
  if (!dialect.identify.lastEventAtEveryStop && out.code !== null) return;
  const text = await run(session, dialect.lastEventCommand, options.timeoutMs, out.notes);
  if (text === null) return;
  const event = dialect.identify.readLastEvent(text);
  out.code = event.code ?? out.code;
  out.chance = event.chance ?? out.chance;
  if (event.description !== null) out.description = event.description;
  if (event.threadId !== undefined) out.threadId = event.threadId;
  if (event.address !== undefined) out.address = event.address;
}

/** CLR exceptions: SOS `!pe` for the type, message and inner exceptions, `!clrstack` for frames. */
async function askSos(
  session: DebuggerSession,
  sos: SosLoader,
  out: IdentifiedException,
  options: IdentifyOptions,
): Promise<void> {
  if (!(await sos.ensure())) {
    out.notes.push(`SOS not available: ${sos.lastError ?? 'unknown'}`);
    return;
  }
  const pe = await run(session, '!pe', options.timeoutMs, out.notes);
  if (pe !== null) {
    const record = parsePrintException(pe);
    const outer = record.exceptions[0];
    if (outer !== undefined) {
      out.clrType = outer.type;
      if (outer.message !== null) out.clrMessage = outer.message;
      if (outer.hresult !== null) out.hresult = outer.hresult;
      const inner = record.exceptions.slice(1).map((e) => ({
        type: e.type,
        ...(e.address === null ? {} : { address: e.address }),
      }));
      if (outer.innerException !== null && inner.length === 0) inner.push(outer.innerException);
      if (inner.length > 0) out.innerExceptions = inner;
    } else if (record.noException) {
      out.notes.push('!pe: no current managed exception on this thread');
    }
  }
  const clrStack = await run(session, '!clrstack', options.timeoutMs, out.notes);
  if (clrStack !== null) {
    const record = parseClrStack(clrStack);
    const managed = (record.threads[0]?.frames ?? [])
      .filter((f) => f.frameType === undefined)
      .map((f) => f.callSite)
      .slice(0, options.frames);
    if (managed.length > 0) out.frames = managed;
    if (record.error !== undefined) out.notes.push(`!clrstack: ${record.error}`);
  }
}

/** The first thread's top frames as `module!function+0x…` strings. */
function topFrames(text: string, limit: number): string[] {
  const record = parseStack(text);
  return (record.threads[0]?.frames ?? [])
    .map((f) => f.callSite)
    .filter((s) => s.length > 0)
    .slice(0, limit);
}
