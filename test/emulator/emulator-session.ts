// The emulated cdb itself: banner, prompt, reading one line at a time, `;` chains, built-in
// commands, canned replies, running the target through scripted events, Ctrl-C break-in, `.dump`,
// and the ways a session ends. Reply text always comes from transcripts (see transcripts.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { echoText, formatPrintf, splitCommandChain, unwrapBlock } from './command-line.js';
import type { ConsoleInput } from './console-input.js';
import type { ConsoleOutput, WriteOptions } from './console-output.js';
import { parseDumpCommand, writeSyntheticDump } from './dump-file.js';
import { quitKillsTarget, type EmulatorArgs, type TargetKind } from './emulator-args.js';
import type { AttachErrorKind, EventStep, NoiseSpec, ReplyRule, Scenario } from './scenario.js';
import type { EndReason, SessionState } from './session-state.js';
import { filterForCode, SxFilters } from './sx-filters.js';
import { resolveLine, resolveText, type TextSource } from './transcripts.js';

type Outcome = 'ok' | 'error' | 'ended';

const DEFAULT_PROMPT = '0:000> ';

/** The emulated process when neither `-p PID` nor the scenario names one (`.dump` MiscInfo). */
const DEFAULT_PID = 4242;
/** The emulated process's main image when nothing names it (`.dump` ModuleList). */
const DEFAULT_PROCESS_NAME = 'app.exe';
/** The thread a dump is taken on when no exception event names one. */
const DEFAULT_THREAD_ID = 0x1a2c;

/** Startup banners by target kind; each stops before the transcript's first prompt line. */
const DEFAULT_BANNERS: Record<TargetKind, TextSource> = {
  dump: { transcript: 'startup/fuzzmanager-cdb-z-win10-x64-av-minidump.txt' },
  attach: { transcript: 'startup/cn-notes-windbg-attach-x86-pending-attach.txt' },
  'attach-name': { transcript: 'startup/cn-notes-windbg-attach-x86-pending-attach.txt' },
  launch: { transcript: 'startup/windbg-launch-net8-apphost-x64-initialbp.txt' },
  none: { transcript: 'startup/fuzzmanager-cdb-z-win10-x64-av-minidump.txt' },
};

const DEFAULT_BREAK_IN: EventStep = {
  banner: [{ transcript: 'events/onecode-win7-x86-breakin-after-htrace.txt' }],
};

/** What cdb prints on `q` (last line of the FuzzManager full-session transcript). */
const QUIT_TEXT: TextSource = {
  transcript: 'startup/fuzzmanager-full-session-win10-x64-av.txt',
  from: 'quit:',
  to: 'quit:',
};

/** `.dump` success, from the dbgeng messages in the StackDump transcript. */
const DUMP_WRITTEN: TextSource = {
  transcript: 'dump-sos-sx/stackdump-dbgeng-event-kp-and-dump-written.txt',
  from: 'Creating ',
  to: 'Dump successfully written',
};

/** `.dump` failure; the reporter indented every line by one space (INDEX notes). */
const DUMP_DENIED: TextSource = {
  transcript: 'dump-sos-sx/dump-mA-failure-access-denied-adplus.txt',
  from: 'Creating ',
  dedent: 1,
};

/*
 * `.loadby sos clr` before the runtime is loaded. The transcript shows the `clr` and `mscorwks`
 * lines (the substitution reproduces the `mscorwks` one exactly); no transcript shows the `coreclr`
 * one, so that is the `clr` line with the module name changed (`Unable to find module 'coreclr'`).
 */
const LOADBY_NOT_FOUND: TextSource = {
  transcript: 'dump-sos-sx/loadby-sos-clr-and-mscorwks-unable-to-find-module.txt',
  from: "Unable to find module 'clr'",
  to: "Unable to find module 'clr'",
};

/*
 * Attach failures. Not in any transcript: the three-line shape and the exact texts are those
 * SkyLined/mBugId matches in cCdbWrapper_fAttachCdbToProcessForId.py
 * (https://github.com/SkyLined/mBugId).
 */
const ATTACH_ERRORS: Record<AttachErrorKind, { status: string; description: string }> = {
  'access-denied': { status: 'Win32 error 0n5', description: 'Access is denied.' },
  'bad-parameter': { status: 'Win32 error 0n87', description: 'The parameter is incorrect.' },
  'already-debugged': {
    status: 'NTSTATUS 0xC0000048',
    description:
      'The process that you are attempting to attach to is already being debugged. Only one debugger can be invasively attached to a process at a time. A non-invasive attach is still possible when another debugger is attached.',
  },
  exiting: {
    status: 'NTSTATUS 0xC000010A',
    description: 'An attempt was made to access an exiting process.',
  },
};

/*
 * Commands that print nothing on success and have no transcript of their own. `.loadby` and `.load`
 * print nothing on success (none of the transcripts that load SOS shows a line for it); the
 * others are set-up commands the engine sends.
 * A scenario reply for any of them wins over this list.
 */
// ".prompt_allow -dis -ea -reg -src -sym", ".loadby sos coreclr", ".childdbg 1"
const SILENT_COMMANDS =
  /^(?:\.prompt_allow|\.pcmd|\.loadby|\.load|\.childdbg|\.symopt[+-])(?:\s|$)/i;

// "g", "gn", "gh", "gc", "g 00007ff6`b0f81204"
const GO_COMMAND = /^g[nhc]?(?:\s|$)/i;
// "q", "qd", "qq", "Q"
const QUIT_COMMAND = /^(?:q|qd|qq|Q)$/;
// "(1d18.19ec): Access violation - code c0000005 (first chance)"
// "(5fc4.6320): CLR exception - code e0434352 (!!! second chance !!!)"
// "Access violation - code c0000005 (first chance)"  (old NTSD, no pid.tid)
const EVENT_CODE = /- code ([0-9a-f]{8}) \((first chance|!!! second chance !!!)\)/i;
// "Loading Dump File [c:\Users\fuzz1win\AppData\Local\CrashDumps\js-dbg-64-....dmp]"
const LOADING_DUMP = /^(Loading Dump File \[).*(\])$/;
// "CommandLine: C:\Users\noahfalk\source\repos\...\ExceptionExample.exe"
const COMMAND_LINE = /^(CommandLine: ).*$/;
// "Creating exception.dmp - mini user dump"
const CREATING_DUMP = /^(Creating ).*( - mini user dump)$/;
// "(5fc4.6320): CLR exception - code e0434352 (first chance)": pid.tid in hex
const EVENT_THREAD = /^\(([0-9a-f]+)\.([0-9a-f]+)\):/i;
// "ModLoad: 00007ff8`09c40000 00007ff8`0a128000   C:\Program Files\dotnet\shared\Microsoft.NETCore.App\8.0.2\coreclr.dll"
// "ModLoad: 00007ff7`52e50000 00007ff7`52e79000   apphost.exe"
const MOD_LOAD = /^ModLoad: +\S+ +\S+ +(.*\S)\s*$/;
// ".loadby sos coreclr", ".loadby sos clr", ".loadby sos mscorwks"
const LOADBY_RUNTIME = /^\.loadby\s+\S+\s+(clr|coreclr|mscorwks)$/i;

/** `clr` for a ModLoad path `C:\Windows\Microsoft.NET\Framework64\v4.0.30319\clr.dll`. */
function moduleBaseName(path: string): string {
  return (path.split(/[\\/]/).pop() ?? '').replace(/\.(?:dll|exe)$/i, '').toLowerCase();
}

/** The exception a stop's banner announces (code and thread), if it is an exception event. */
function exceptionOf(lines: readonly string[]): { code: number; threadId?: number } | undefined {
  // The last one: where a banner holds several (a first chance passed, then the stop), the target
  // stands at the last.
  const line = [...lines].reverse().find((l) => EVENT_CODE.test(l));
  const code = line === undefined ? undefined : EVENT_CODE.exec(line)?.[1];
  if (line === undefined || code === undefined) return undefined;
  const tid = EVENT_THREAD.exec(line)?.[2];
  return {
    code: parseInt(code, 16),
    ...(tid === undefined ? {} : { threadId: parseInt(tid, 16) }),
  };
}

interface CompiledRule {
  rule: ReplyRule;
  regex: RegExp | undefined;
}

function compile(rules: readonly ReplyRule[] | undefined): CompiledRule[] {
  return (rules ?? []).map((rule) => ({
    rule,
    regex: rule.pattern === undefined ? undefined : new RegExp(rule.pattern),
  }));
}

function matches(compiled: CompiledRule, command: string): boolean {
  if (compiled.regex !== undefined) return compiled.regex.test(command);
  return compiled.rule.command === command;
}

function textOf(sources: readonly TextSource[] | undefined): string[] {
  return (sources ?? []).flatMap((source) => resolveText(source));
}

/** Cut reply line `noise.line` at `noise.column` and put the noise line in the gap. */
export function insertNoise(lines: readonly string[], noise: NoiseSpec): string[] {
  const index = Math.min(Math.max(noise.line, 1), Math.max(lines.length, 1)) - 1;
  const target = lines[index] ?? '';
  const column = Math.min(Math.max(noise.column, 0), target.length);
  const text = resolveLine(noise.text);
  return [
    ...lines.slice(0, index),
    target.slice(0, column) + text,
    target.slice(column),
    ...lines.slice(index + 1),
  ];
}

export class EmulatorSession {
  private readonly basePrompt: string;
  private prompt: string;
  private readonly filters = new SxFilters();
  private readonly pending: EventStep[];
  private readonly globalRules: CompiledRule[];
  private stopRules: CompiledRule[] = [];
  private exitDelivered = false;
  private targetExited = false;
  private running = false;
  private wakeRunning: (() => void) | undefined;
  private interruptPending = false;
  private busy: AbortController | undefined;
  private exitCode = 0;
  private readonly uses = new Map<ReplyRule, number>();
  /** Base names (`coreclr`) of modules whose ModLoad lines the banner or a taken event held. */
  private readonly loadedModules = new Set<string>();
  /** The exception event the target is stopped at, for `.dump`'s exception stream. */
  private stopException: { code: number; threadId?: number } | undefined;

  constructor(
    private readonly args: EmulatorArgs,
    private readonly scenario: Scenario,
    private readonly out: ConsoleOutput,
    private readonly input: ConsoleInput,
    private readonly state: SessionState,
  ) {
    this.basePrompt = scenario.prompt ?? DEFAULT_PROMPT;
    this.prompt = this.basePrompt;
    this.pending = [...(scenario.events ?? [])];
    this.globalRules = compile(scenario.replies);
    input.on('interrupt', () => this.onInterrupt());
  }

  /** Runs the session to its end; resolves with cdb's exit code. */
  async run(): Promise<number> {
    await this.out.start();
    if (this.scenario.attachError !== undefined) return this.failAttach(this.scenario.attachError);
    const banner = this.bannerLines();
    // The banner's modules are loaded and its event (the attach break-in, the dump's exception)
    // is where the target stands at the first prompt. A noninvasive `-pv` attach raises no debug
    // event at all, whatever banner the scenario prints, so it has no exception to dump.
    this.noteModules(banner);
    if (!this.args.noninvasive) this.stopException = exceptionOf(banner);
    await this.out.lines(banner);
    const delay = this.scenario.startupDelayMs ?? 0;
    if (delay < 0) return this.hang();
    if (delay > 0) await sleep(delay);
    if (this.args.initialCommand !== undefined) {
      // As in the transcripts: "0:000> cdb: Reading initial command '$<c:\...\cdbCmds.txt'"
      await this.out.write(
        `${this.prompt}cdb: Reading initial command '${this.args.initialCommand}'\n`,
      );
      if ((await this.executeLine(this.args.initialCommand)) === 'ended') return this.exitCode;
    }
    for (;;) {
      await this.out.write(this.prompt);
      const line = await this.input.readLine();
      if (line === null) {
        this.end('killed', 1);
        return this.exitCode;
      }
      // A console echoes typed input when the program reads it (see cdb-emulator.ts header).
      if (this.scenario.console?.echo === undefined || this.scenario.console.echo === 'conhost') {
        await this.out.write(`${line}\n`);
      }
      if ((await this.executeLine(line)) === 'ended') return this.exitCode;
    }
  }

  private bannerLines(): string[] {
    const sources = this.scenario.banner ?? [DEFAULT_BANNERS[this.args.target]];
    return textOf(sources).map((line) => {
      // cdb names the dump and the command line it was given, not the ones in the transcript.
      if (this.args.dumpPath !== undefined && LOADING_DUMP.test(line)) {
        return line.replace(LOADING_DUMP, `$1${this.args.dumpPath}$2`);
      }
      if (this.args.program !== undefined && COMMAND_LINE.test(line)) {
        return `CommandLine: ${[this.args.program, ...this.args.programArgs].join(' ')}`;
      }
      return line;
    });
  }

  private async failAttach(kind: AttachErrorKind): Promise<number> {
    const { status, description } = ATTACH_ERRORS[kind];
    const pid = this.args.pid ?? this.scenario.pid ?? 0;
    await this.out.lines([
      `Cannot debug pid ${pid}, ${status}`,
      `    "${description}"`,
      `Unable to initialize target, ${status}`,
    ]);
    // Inferred: with the initial attach failed there is nothing to debug and cdb exits.
    this.end('attach-failed', 1);
    return this.exitCode;
  }

  /** Execute one typed line; an error drops the rest of its `;` chain (see cdb-emulator.ts). */
  private async executeLine(line: string): Promise<Outcome> {
    for (const command of splitCommandChain(line)) {
      const outcome = await this.execute(command);
      if (outcome !== 'ok') return outcome === 'ended' ? 'ended' : 'ok';
    }
    return 'ok';
  }

  private async execute(command: string): Promise<Outcome> {
    const inner = unwrapBlock(command);
    if (inner !== null) {
      for (const sub of inner) {
        const outcome = await this.execute(sub);
        if (outcome !== 'ok') return outcome;
      }
      return 'ok';
    }
    this.state.update((r) => r.commands.push(command));
    if (GO_COMMAND.test(command)) return this.go();
    if (QUIT_COMMAND.test(command)) return this.quit(command as 'q' | 'qd' | 'qq' | 'Q');
    // ".echo __CDBH_1f2e3d4c_7__"
    if (/^\.echo(?:\s|$)/i.test(command)) {
      await this.out.lines([echoText(command)]);
      return 'ok';
    }
    // ".printf \"%c%c%c\\n\", 0x3D, 0x3C, 0x5B"
    if (/^\.printf(?:\s|$)/i.test(command)) {
      try {
        await this.out.write(formatPrintf(command));
        return 'ok';
      } catch (error) {
        await this.out.lines([(error as Error).message]);
        return 'error';
      }
    }
    if (this.filters.apply(command)) return 'ok';
    // ".detach"
    if (/^\.detach$/i.test(command)) {
      this.state.update((r) => (r.detached = true));
      return 'ok';
    }
    // ".dump /o /ma \"C:\\dumps\\app.dmp\""
    if (/^\.dump(?:\s|$)/i.test(command)) return this.dump(command);
    const rule = this.findRule(command);
    if (rule !== undefined) return this.reply(rule);
    const runtime = LOADBY_RUNTIME.exec(command)?.[1]?.toLowerCase();
    if (runtime !== undefined && this.runtimeMissing(runtime)) {
      await this.out.lines(
        resolveText(LOADBY_NOT_FOUND).map((l) => l.replace("'clr'", `'${runtime}'`)),
      );
      return 'error';
    }
    if (SILENT_COMMANDS.test(command)) return 'ok';
    return this.unknown(command);
  }

  /**
   * A live target has loaded a runtime only once a ModLoad line (banner or event taken) named it.
   * A dump's module list is not scripted as ModLoad lines, so there `.loadby` succeeds silently as
   * before (analyze only sends it when the dump's module list holds the runtime).
   */
  private runtimeMissing(runtime: string): boolean {
    return this.args.target !== 'dump' && !this.loadedModules.has(runtime);
  }

  private noteModules(lines: readonly string[]): void {
    for (const line of lines) {
      const path = MOD_LOAD.exec(line)?.[1];
      if (path !== undefined) this.loadedModules.add(moduleBaseName(path));
    }
  }

  private findRule(command: string): ReplyRule | undefined {
    const usable = (c: CompiledRule): boolean =>
      matches(c, command) &&
      (c.rule.times === undefined || (this.uses.get(c.rule) ?? 0) < c.rule.times);
    const rule = (this.stopRules.find(usable) ?? this.globalRules.find(usable))?.rule;
    if (rule !== undefined) this.uses.set(rule, (this.uses.get(rule) ?? 0) + 1);
    return rule;
  }

  /*
   * No transcript shows cdb rejecting an unknown command. The text follows the error lines of
   * events/clusterfuzz-av-first-chance-then-second-chance-x64-win7.txt ("Couldnt resolve error at
   * Create"), whose apostrophes ClusterFuzz stripped (INDEX notes), restored with the quoting cdb
   * uses for the same family of errors (`Bad register error at '@rip) '` in the output of
   * MozillaSecurity/funfuzz's cdb_cmds.txt on a 32-bit dump).
   */
  private async unknown(command: string): Promise<Outcome> {
    await this.out.lines([`Couldn't resolve error at '${command}'`]);
    return 'error';
  }

  private async reply(rule: ReplyRule): Promise<Outcome> {
    let lines = textOf(rule.reply);
    if (rule.noise !== undefined) lines = insertNoise(lines, rule.noise);
    const options: WriteOptions = { chunk: rule.chunk, chunkDelayMs: rule.chunkDelayMs };
    if (rule.exitAfterLines !== undefined) {
      await this.out.lines(lines.slice(0, rule.exitAfterLines), options);
      return this.end('crashed', rule.exitCode ?? 1);
    }
    if (rule.hang === true) {
      await this.out.lines(lines, options);
      return this.hang();
    }
    await this.out.lines(lines, options);
    if (rule.endless !== undefined) await this.endless(resolveLine(rule.endless));
    return rule.error === true ? 'error' : 'ok';
  }

  /**
   * Print one real line forever until Ctrl-C (the `!clrstack` ComMethodFrame loop,
   * https://github.com/svnscha/mcp-windbg/issues/112).
   */
  private async endless(line: string): Promise<void> {
    const busy = new AbortController();
    this.busy = busy;
    const batch = Array.from({ length: 64 }, () => line);
    try {
      while (!busy.signal.aborted) {
        await this.out.lines(batch);
        // Let stdin events (the Ctrl-C) in between batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.busy = undefined;
    }
  }

  /** Never answer again. The process lives until the pty closes or it is killed. */
  private hang(): Promise<never> {
    this.input.ignoreAll();
    return new Promise<never>(() => undefined);
  }

  private async quit(command: 'q' | 'qd' | 'qq' | 'Q'): Promise<Outcome> {
    await this.out.lines(resolveText(QUIT_TEXT));
    const record = this.state.record;
    const alive =
      !this.targetExited && (command === 'qd' || record.detached || !quitKillsTarget(this.args));
    this.state.update((r) => (r.targetAlive = alive));
    return this.end(command, 0);
  }

  private end(reason: EndReason, exitCode: number): 'ended' {
    this.exitCode = exitCode;
    this.state.update((r) => {
      r.ended = reason;
      r.exitCode = exitCode;
      if (reason === 'target-exited') r.targetAlive = false;
      // A debugger that dies without detaching takes an invasive target with it.
      if (
        (reason === 'killed' || reason === 'crashed') &&
        !r.detached &&
        quitKillsTarget(this.args)
      ) {
        r.targetAlive = false;
      }
    });
    return 'ended';
  }

  private async dump(command: string): Promise<Outcome> {
    const parsed = parseDumpCommand(command);
    if (parsed === null) return this.unknown(command);
    const denied = this.scenario.dump?.result === 'access-denied';
    let lines = resolveText(denied ? DUMP_DENIED : DUMP_WRITTEN);
    lines = lines.map((l) => l.replace(CREATING_DUMP, `$1${parsed.path}$2`));
    if (!denied) {
      // Without /o cdb refuses to overwrite an existing file (Microsoft's `.dump` page,
      // https://learn.microsoft.com/windows-hardware/drivers/debuggercmds/-dump--create-dump-file-),
      // but no transcript has that message; the emulator overwrites either way (the harness
      // always passes /o).
      const exception = this.stopException;
      const threadId = exception?.threadId ?? DEFAULT_THREAD_ID;
      try {
        writeSyntheticDump(parsed.path, {
          fullMemory: parsed.fullMemory,
          pid: this.args.pid ?? this.scenario.pid ?? DEFAULT_PID,
          processName: this.processName(),
          threadId,
          ...(exception === undefined ? {} : { exception: { code: exception.code, threadId } }),
        });
      } catch {
        lines = resolveText(DUMP_DENIED).map((l) => l.replace(CREATING_DUMP, `$1${parsed.path}$2`));
      }
    }
    const written = lines.some((l) => l.startsWith('Dump successfully written'));
    if (written) this.state.update((r) => r.dumps.push(parsed.path));
    await this.out.lines(lines);
    return 'ok';
  }

  /** The scenario's name for the process, else the one cdb was given (`-pn`, the program). */
  private processName(): string {
    const program = this.args.program?.split(/[\\/]/).pop();
    return (
      this.scenario.processName ??
      this.args.processName ??
      (program === undefined || program === '' ? undefined : program) ??
      DEFAULT_PROCESS_NAME
    );
  }

  // ---- running the target -------------------------------------------------------------------

  private onInterrupt(): void {
    this.state.update((r) => (r.interrupts += 1));
    if (this.running) {
      this.interruptPending = true;
      this.wakeRunning?.();
    } else {
      // Ctrl-C while a command prints stops the command; at the prompt it does nothing.
      this.busy?.abort();
    }
  }

  /** Sleep while the target runs; true when a Ctrl-C cut the wait short. */
  private async runFor(ms: number): Promise<boolean> {
    if (this.interruptPending) return true;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wakeRunning = resolve;
      if (Number.isFinite(ms)) timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.wakeRunning = undefined;
    return this.interruptPending;
  }

  private async go(): Promise<Outcome> {
    if (this.targetExited) {
      // Inferred: resuming a process that has exited ends cdb (nothing left to debug).
      return this.end('target-exited', 0);
    }
    this.running = true;
    this.interruptPending = false;
    this.stopRules = [];
    this.stopException = undefined;
    try {
      return await this.runUntilStop();
    } finally {
      this.running = false;
      this.interruptPending = false;
    }
  }

  private async runUntilStop(): Promise<Outcome> {
    for (;;) {
      const step = this.pending.shift() ?? this.exitStep();
      if (step === undefined) {
        // Nothing scripted: the target runs until someone breaks in.
        await this.runFor(Number.POSITIVE_INFINITY);
        return this.breakIn();
      }
      if (await this.runFor(step.delayMs ?? 20)) {
        if (step !== this.scenario.processExit) this.pending.unshift(step);
        else this.exitDelivered = false;
        return this.breakIn();
      }
      const isExit = step === this.scenario.processExit;
      // The event happened whether or not its text prints (`sxi ld` hides a load, not the module).
      this.noteModules(textOf(step.banner));
      const decision = this.decide(step, isExit);
      await this.out.lines(decision.lines);
      if (decision.stop) {
        if (isExit) this.targetExited = true;
        this.stopAt(step);
        return 'ok';
      }
      if (isExit) {
        // `sxd epr` / `sxi epr`: cdb exits silently when the application ends (why SkyLined/mBugId
        // keeps `sxe epr`, fsbExceptionHandlingCdbCommands.py).
        return this.end('target-exited', 0);
      }
    }
  }

  private exitStep(): EventStep | undefined {
    if (this.exitDelivered || this.scenario.processExit === undefined) return undefined;
    this.exitDelivered = true;
    return this.scenario.processExit;
  }

  private decide(step: EventStep, isExit: boolean): { lines: string[]; stop: boolean } {
    const banner = textOf(step.banner);
    const codeLine = banner.find((l) => EVENT_CODE.test(l));
    const match = codeLine === undefined ? null : EVENT_CODE.exec(codeLine);
    const filter =
      step.filter ?? (isExit ? 'epr' : match !== null ? filterForCode(match[1] ?? '') : 'out');
    const state = this.filters.get(filter);
    if (match === null) {
      // An event, not an exception: break stops; output/second-chance print; ignore hides.
      if (state === 'ignore') return { lines: [], stop: false };
      const stop = state === 'break' && (filter !== 'ld' || this.filters.loadMatches(banner));
      return { lines: banner, stop };
    }
    const secondChance = (match[2] ?? '').startsWith('!!!');
    // MS "Controlling Exceptions and Events": sxi never breaks and prints nothing; sxn never
    // breaks but prints; sxd prints the first chance and breaks on the second; sxe breaks at once.
    if (state === 'ignore') return { lines: [], stop: false };
    if (state === 'break' || (state === 'second' && secondChance))
      return { lines: banner, stop: true };
    // The first-chance line prints alone and the target goes on (see sx-filters.ts).
    const pass = step.passBanner === undefined ? [codeLine ?? ''] : textOf(step.passBanner);
    return { lines: pass, stop: false };
  }

  private stopAt(step: EventStep): void {
    this.stopException = exceptionOf(textOf(step.banner));
    this.prompt = step.prompt ?? this.basePrompt;
    this.stopRules = compile(step.replies);
  }

  private async breakIn(): Promise<Outcome> {
    const step = this.scenario.breakIn ?? DEFAULT_BREAK_IN;
    await this.out.lines(textOf(step.banner));
    this.stopAt(step);
    return 'ok';
  }
}
