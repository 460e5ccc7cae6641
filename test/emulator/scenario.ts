// The scenario file: what one emulated cdb session knows and how it misbehaves. JSON, loaded once
// at start-up and checked up front, so a typo in a test's scenario fails loudly instead of turning
// into a silent "unknown command" later.
import { readFileSync } from 'node:fs';
import { resolveLine, resolveText, type TextSource } from './transcripts.js';

/** How typed input is echoed. See the header of cdb-emulator.ts for why `conhost` is the default. */
export type EchoMode = 'conhost' | 'tty' | 'none';

/** Write output in random-sized pieces (seeded, so a failing test can be re-run byte for byte). */
export interface ChunkSpec {
  seed: number;
  min: number;
  max: number;
}

export interface ConsoleSpec {
  echo?: EchoMode;
  /** Decorate output with the VT sequences a ConPTY renderer emits. */
  vt?: boolean;
  chunk?: ChunkSpec;
  /** Pause between chunks (slow output). */
  chunkDelayMs?: number;
}

/** Insert one transcript line (symbol-load noise) into the middle of a reply line. */
export interface NoiseSpec {
  /** 1-based line of the reply to cut. */
  line: number;
  /** Character offset in that line where the noise lands. */
  column: number;
  text: TextSource;
}

export interface ReplyRule {
  /** Exact command text (after trimming). */
  command?: string;
  /** Regular expression source, tested against the trimmed command. */
  pattern?: string;
  /**
   * Answer only this many times, then let the next matching rule answer: successive `!heap -s`
   * samples are several rules for one command, each with `times: 1`.
   */
  times?: number;
  /** Transcript slices printed in order; absent or empty means the command prints nothing. */
  reply?: TextSource[];
  /** The reply is an error: cdb drops the rest of the `;` chain. */
  error?: boolean;
  /** Never answer: no output, no prompt, input ignored from then on. */
  hang?: boolean;
  /** Print this many reply lines, then exit with `exitCode` (a debugger crash mid-command). */
  exitAfterLines?: number;
  exitCode?: number;
  /** After the reply, print this line forever (until Ctrl-C or the pty closes). */
  endless?: TextSource;
  noise?: NoiseSpec;
  chunk?: ChunkSpec;
  chunkDelayMs?: number;
}

export interface EventStep {
  /** Printed when the event stops the target (or would, on second chance). */
  banner: TextSource[];
  /**
   * Printed when a first-chance exception passes under `sxd`. Defaults to the banner's first line,
   * which in the transcripts is the `(pid.tid): … (first chance)` line printed alone.
   */
  passBanner?: TextSource[];
  /** sx filter name; derived from the banner's `code XXXXXXXX` when absent. */
  filter?: string;
  delayMs?: number;
  /** Prompt after this stop, e.g. `0:004> ` once the break thread is current. */
  prompt?: string;
  /** Replies that apply while stopped at this event (`.lastevent`, `.exr -1`), ahead of the global ones. */
  replies?: ReplyRule[];
}

export type AttachErrorKind = 'access-denied' | 'bad-parameter' | 'already-debugged' | 'exiting';

export interface Scenario {
  description?: string;
  /** Startup banner; default picked from the target kind (see defaultBanner in cdb-emulator.ts). */
  banner?: TextSource[];
  prompt?: string;
  console?: ConsoleSpec;
  /**
   * The emulated process id when cdb was not given `-p PID`: printed by attach errors when the
   * target is given by name, and recorded in `.dump`'s synthetic dump.
   */
  pid?: number;
  /**
   * The emulated process's main image (`w3wp.exe`), the one module of `.dump`'s synthetic dump.
   * Default: the `-pn` name, the launched program's file name, else `app.exe`.
   */
  processName?: string;
  attachError?: AttachErrorKind;
  /** Hold the first prompt back this long (slow start) or forever (`-1`). */
  startupDelayMs?: number;
  replies?: ReplyRule[];
  events?: EventStep[];
  /** What stops the debugger when the target exits after the last event (`epr`). */
  processExit?: EventStep;
  /** Printed on Ctrl-C while the target runs. */
  breakIn?: EventStep;
  dump?: { result: 'success' | 'access-denied' };
  /** Where the session-end record goes (the `--state` argument wins). */
  stateFile?: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class ScenarioError extends Error {}

function fail(where: string, message: string): never {
  throw new ScenarioError(`scenario ${where}: ${message}`);
}

function asObject(value: Json | undefined, where: string): Record<string, Json> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(where, 'expected an object');
  }
  return value;
}

function checkKeys(obj: Record<string, Json>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(where, `unknown field '${key}'`);
  }
}

function optString(obj: Record<string, Json>, key: string, where: string): string | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') fail(`${where}.${key}`, 'expected a string');
  return v;
}

function optNumber(obj: Record<string, Json>, key: string, where: string): number | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${where}.${key}`, 'expected a number');
  return v;
}

function optBool(obj: Record<string, Json>, key: string, where: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') fail(`${where}.${key}`, 'expected true or false');
  return v;
}

function anchor(
  obj: Record<string, Json>,
  key: string,
  where: string,
): number | string | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' && typeof v !== 'string') {
    fail(`${where}.${key}`, 'expected a line number or a text');
  }
  return v;
}

function textSource(value: Json | undefined, where: string): TextSource {
  const obj = asObject(value, where);
  checkKeys(
    obj,
    ['transcript', 'from', 'to', 'keepCommandLine', 'throughPrompts', 'dedent'],
    where,
  );
  const transcript = optString(obj, 'transcript', where);
  if (transcript === undefined) fail(where, "missing 'transcript'");
  const source: TextSource = { transcript };
  const from = anchor(obj, 'from', where);
  const to = anchor(obj, 'to', where);
  const keep = optBool(obj, 'keepCommandLine', where);
  const through = optBool(obj, 'throughPrompts', where);
  const dedent = optNumber(obj, 'dedent', where);
  if (from !== undefined) source.from = from;
  if (to !== undefined) source.to = to;
  if (keep !== undefined) source.keepCommandLine = keep;
  if (through !== undefined) source.throughPrompts = through;
  if (dedent !== undefined) source.dedent = dedent;
  // Resolve now: a missing file or anchor is a scenario bug, reported before the banner prints.
  try {
    resolveText(source);
  } catch (error) {
    fail(where, (error as Error).message);
  }
  return source;
}

/** One source or a list of them; both spellings are accepted for readability. */
function textSources(value: Json | undefined, where: string): TextSource[] {
  if (Array.isArray(value)) return value.map((v, i) => textSource(v, `${where}[${i}]`));
  return [textSource(value, where)];
}

function chunkSpec(value: Json | undefined, where: string): ChunkSpec {
  const obj = asObject(value, where);
  checkKeys(obj, ['seed', 'min', 'max'], where);
  const seed = optNumber(obj, 'seed', where) ?? 1;
  const min = optNumber(obj, 'min', where) ?? 1;
  const max = optNumber(obj, 'max', where) ?? 16;
  if (min < 1 || max < min) fail(where, 'need 1 <= min <= max');
  return { seed, min, max };
}

function replyRule(value: Json | undefined, where: string): ReplyRule {
  const obj = asObject(value, where);
  checkKeys(
    obj,
    [
      'command',
      'pattern',
      'times',
      'reply',
      'error',
      'hang',
      'exitAfterLines',
      'exitCode',
      'endless',
      'noise',
      'chunk',
      'chunkDelayMs',
    ],
    where,
  );
  const rule: ReplyRule = {};
  const command = optString(obj, 'command', where);
  const pattern = optString(obj, 'pattern', where);
  if ((command === undefined) === (pattern === undefined)) {
    fail(where, "give exactly one of 'command' or 'pattern'");
  }
  if (command !== undefined) rule.command = command;
  if (pattern !== undefined) {
    try {
      new RegExp(pattern);
    } catch (error) {
      fail(`${where}.pattern`, (error as Error).message);
    }
    rule.pattern = pattern;
  }
  const times = optNumber(obj, 'times', where);
  if (times !== undefined) rule.times = times;
  if (obj['reply'] !== undefined) rule.reply = textSources(obj['reply'], `${where}.reply`);
  const error = optBool(obj, 'error', where);
  const hang = optBool(obj, 'hang', where);
  const exitAfterLines = optNumber(obj, 'exitAfterLines', where);
  const exitCode = optNumber(obj, 'exitCode', where);
  const chunkDelayMs = optNumber(obj, 'chunkDelayMs', where);
  if (error !== undefined) rule.error = error;
  if (hang !== undefined) rule.hang = hang;
  if (exitAfterLines !== undefined) rule.exitAfterLines = exitAfterLines;
  if (exitCode !== undefined) rule.exitCode = exitCode;
  if (chunkDelayMs !== undefined) rule.chunkDelayMs = chunkDelayMs;
  if (obj['chunk'] !== undefined) rule.chunk = chunkSpec(obj['chunk'], `${where}.chunk`);
  if (obj['endless'] !== undefined) {
    rule.endless = textSource(obj['endless'], `${where}.endless`);
    resolveLine(rule.endless);
  }
  if (obj['noise'] !== undefined) {
    const n = asObject(obj['noise'], `${where}.noise`);
    checkKeys(n, ['line', 'column', 'text'], `${where}.noise`);
    const text = textSource(n['text'], `${where}.noise.text`);
    resolveLine(text);
    rule.noise = {
      line: optNumber(n, 'line', `${where}.noise`) ?? 1,
      column: optNumber(n, 'column', `${where}.noise`) ?? 0,
      text,
    };
  }
  return rule;
}

function replyRules(value: Json | undefined, where: string): ReplyRule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(where, 'expected a list');
  return value.map((v, i) => replyRule(v, `${where}[${i}]`));
}

function eventStep(value: Json | undefined, where: string): EventStep {
  const obj = asObject(value, where);
  checkKeys(obj, ['banner', 'passBanner', 'filter', 'delayMs', 'prompt', 'replies'], where);
  const step: EventStep = { banner: textSources(obj['banner'], `${where}.banner`) };
  if (obj['passBanner'] !== undefined) {
    step.passBanner = textSources(obj['passBanner'], `${where}.passBanner`);
  }
  const filter = optString(obj, 'filter', where);
  const delayMs = optNumber(obj, 'delayMs', where);
  const prompt = optString(obj, 'prompt', where);
  if (filter !== undefined) step.filter = filter;
  if (delayMs !== undefined) step.delayMs = delayMs;
  if (prompt !== undefined) step.prompt = prompt;
  if (obj['replies'] !== undefined) step.replies = replyRules(obj['replies'], `${where}.replies`);
  return step;
}

const ATTACH_ERRORS: readonly AttachErrorKind[] = [
  'access-denied',
  'bad-parameter',
  'already-debugged',
  'exiting',
];

/** Parse and check a scenario; every transcript reference is resolved before this returns. */
export function parseScenario(json: Json, where = 'file'): Scenario {
  const obj = asObject(json, where);
  checkKeys(
    obj,
    [
      '$comment',
      'description',
      'banner',
      'prompt',
      'console',
      'pid',
      'processName',
      'attachError',
      'startupDelayMs',
      'replies',
      'events',
      'processExit',
      'breakIn',
      'dump',
      'stateFile',
    ],
    where,
  );
  const scenario: Scenario = {};
  const description = optString(obj, 'description', where);
  const prompt = optString(obj, 'prompt', where);
  const pid = optNumber(obj, 'pid', where);
  const processName = optString(obj, 'processName', where);
  const startupDelayMs = optNumber(obj, 'startupDelayMs', where);
  const stateFile = optString(obj, 'stateFile', where);
  if (description !== undefined) scenario.description = description;
  if (prompt !== undefined) scenario.prompt = prompt;
  if (pid !== undefined) scenario.pid = pid;
  if (processName !== undefined) scenario.processName = processName;
  if (startupDelayMs !== undefined) scenario.startupDelayMs = startupDelayMs;
  if (stateFile !== undefined) scenario.stateFile = stateFile;
  if (obj['banner'] !== undefined) scenario.banner = textSources(obj['banner'], `${where}.banner`);
  if (obj['console'] !== undefined) {
    const c = asObject(obj['console'], `${where}.console`);
    checkKeys(c, ['echo', 'vt', 'chunk', 'chunkDelayMs'], `${where}.console`);
    const spec: ConsoleSpec = {};
    const echo = optString(c, 'echo', `${where}.console`);
    if (echo !== undefined) {
      if (echo !== 'conhost' && echo !== 'tty' && echo !== 'none') {
        fail(`${where}.console.echo`, "expected 'conhost', 'tty' or 'none'");
      }
      spec.echo = echo;
    }
    const vt = optBool(c, 'vt', `${where}.console`);
    const chunkDelayMs = optNumber(c, 'chunkDelayMs', `${where}.console`);
    if (vt !== undefined) spec.vt = vt;
    if (chunkDelayMs !== undefined) spec.chunkDelayMs = chunkDelayMs;
    if (c['chunk'] !== undefined) spec.chunk = chunkSpec(c['chunk'], `${where}.console.chunk`);
    scenario.console = spec;
  }
  const attachError = optString(obj, 'attachError', where);
  if (attachError !== undefined) {
    const kind = ATTACH_ERRORS.find((k) => k === attachError);
    if (kind === undefined)
      fail(`${where}.attachError`, `expected one of ${ATTACH_ERRORS.join(', ')}`);
    scenario.attachError = kind;
  }
  scenario.replies = replyRules(obj['replies'], `${where}.replies`);
  if (obj['events'] !== undefined) {
    const events = obj['events'];
    if (!Array.isArray(events)) fail(`${where}.events`, 'expected a list');
    scenario.events = events.map((e, i) => eventStep(e, `${where}.events[${i}]`));
  }
  if (obj['processExit'] !== undefined) {
    scenario.processExit = eventStep(obj['processExit'], `${where}.processExit`);
  }
  if (obj['breakIn'] !== undefined)
    scenario.breakIn = eventStep(obj['breakIn'], `${where}.breakIn`);
  if (obj['dump'] !== undefined) {
    const d = asObject(obj['dump'], `${where}.dump`);
    checkKeys(d, ['result'], `${where}.dump`);
    const result = optString(d, 'result', `${where}.dump`);
    if (result !== 'success' && result !== 'access-denied') {
      fail(`${where}.dump.result`, "expected 'success' or 'access-denied'");
    }
    scenario.dump = { result };
  }
  return scenario;
}

export function loadScenario(file: string): Scenario {
  let json: Json;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Json;
  } catch (error) {
    throw new ScenarioError(`scenario ${file}: ${(error as Error).message}`);
  }
  return parseScenario(json, file);
}
