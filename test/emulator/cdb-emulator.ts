// cdb emulator: a stand-in for cdb.exe that tests drive over a real pseudo-terminal.
//
//   node --import tsx test/emulator/cdb-emulator.ts --scenario S.json [--state STATE.json] <cdb args>
//   node --import tsx test/emulator/cdb-emulator.ts --replay SESSION.jsonl
//
// cdb args are what the cdb dialect builds: `-z DUMP`, `-p PID -pd [-pv]`, `-pn NAME -pd`, or a
// program and its arguments (launch); `-y PATH`, `-snul`, `-c CMDS` and other flags are accepted.
//
// WHAT IT PRINTS. Only real transcript text from test/fixtures/transcripts (sources
// in its INDEX.md): the banner, every canned reply, event banners, the break-in banner,
// `quit:`, the `.dump` messages. A scenario names transcript files and slices of their bodies;
// it cannot carry text of its own. The few strings not in any transcript are marked where they are
// defined (attach errors: the texts SkyLined/mBugId matches; the unknown-command error: see
// EmulatorSession.unknown). Substituted into transcript lines: the dump path, the launch command
// line and the `.dump` file name, which cdb itself takes from its input.
//
// CONSOLE BEHAVIOUR (as cdb on a console; sources at each rule in the files that implement it).
// - Prompt `0:000> ` (scenario `prompt`, e.g. `0:000:x86> `), no newline after it. Events may set
//   their own prompt (`0:004> ` after a break-in thread became current).
// - Echo (scenario console.echo):
//   conhost (default): the tty is put in raw mode and the emulator echoes each line when it reads
//     it, right after the prompt, as conhost's line input does for a program reading the console.
//     Input typed while cdb is busy or the target runs waits unechoed until the next read, so the
//     client sees `0:000> CMD\r\n<reply>\r\n0:000> .echo M\r\nM\r\n0:000> `.
//   tty: the Linux line discipline is left on: the kernel echoes as bytes arrive (type-ahead is
//     echoed at once), Ctrl-C becomes SIGINT, and CRLF output arrives as CR CR LF.
//   none: no echo at all, as cdb on pipes.
// - Output lines end in CRLF. console.vt adds ConPTY-style VT sequences (cursor hide/show, erase
//   to end of line, a screen clear and a window title at start) for the engine to strip.
// - `;` separates commands outside quotes and `.block{}`; `$$` comments are dropped. A command
//   that errs drops the rest of its line (SkyLined/mBugId puts its end marker on a line of its
//   own for that reason), so a marker on the same line is lost.
// - `.echo TEXT` and `.printf "FMT", ARGS` (`%c %d %u %x %X %p %s %%`, `\n \r \t`, numbers in
//   cdb's default radix 16, `0x`/`0n`/`0t`/`0y` prefixes).
// - `g`/`gn`/`gh`/`gc` run the target: scripted events are taken in order; each prints its
//   banner and stops, or prints only its first-chance line and goes on, according to the
//   `sxe`/`sxd`/`sxn`/`sxi` filters (defaults from the transcripts' `sx` listing). After the last
//   event, `processExit` (if given) stops with `epr` or, with `sxd epr`, cdb exits silently;
//   without it the target runs until Ctrl-C. Commands after `g` in the same chain run at the stop.
// - Ctrl-C (`\x03` in raw mode, SIGINT in tty mode) while the target runs prints the break-in
//   banner and the prompt; while a reply prints forever it stops the reply; at the prompt it is
//   ignored. A break sent before cdb has read the `g` is lost, as on Windows
//   (https://github.com/svnscha/mcp-windbg/issues/73).
// - `.dump [/o] /ma|/m "PATH"` writes a small SYNTHETIC minidump (NOT a real dump, see
//   dump-file.ts: the emulated pid, one thread, one module named after the process, the stop's
//   exception if stopped at one; /ma reads as full, /m as mini) and prints
//   `Creating PATH - mini user dump` / `Dump successfully written`; with scenario
//   dump.result = access-denied it prints the ADPlus failure and writes nothing.
// - `.loadby sos clr|coreclr|mscorwks` with no scenario reply, on a live target whose banner and
//   events so far held no ModLoad line for that runtime, prints `Unable to find module 'clr'`
//   (the name substituted) and errs; otherwise it succeeds silently, as `.load` does.
// - `q` ends cdb and, on an invasive live target without `-pd`, the target; `qd`, `-pd` + `q`,
//   `.detach` + `q` and noninvasive `-pv` sessions leave it alive. The state file records it.
//
// FAULTS (per reply rule): `hang` (never answer), `exitAfterLines`+`exitCode` (die mid-reply),
// `chunk` {seed,min,max} (random byte-boundary splits, also global in console.chunk),
// `chunkDelayMs` (slow output), `noise` (a transcript symbol-error line cut into the middle of a
// reply line), `endless` (a transcript line repeated forever); scenario-wide `startupDelayMs`
// (-1: never reach the first prompt) and `attachError` (the three-line attach failure, then exit 1).
//
// STATE FILE (`--state FILE` or scenario stateFile), rewritten on every change:
//   {"ended": "q"|"qd"|"qq"|"Q"|"killed"|"crashed"|"target-exited"|"attach-failed"|null,
//    "targetAlive": bool, "detached": bool, "commands": [...], "interrupts": n, "dumps": [...],
//    "exitCode": n|null, "argv": [...], "target": "dump"|"attach"|…}
//
// SCENARIO FORMAT: see scenario.ts (checked on load; unknown fields are errors) and the files in
// test/emulator/scenarios/. A text source is {"transcript": "events/x.txt", "from"?, "to"?,
// "keepCommandLine"?, "throughPrompts"?, "dedent"?}; by default it drops the body's own
// `0:000> cmd` first line and stops before the next prompt line.
//
// REPLAY: `--replay` plays back an engine recording (replay.ts), matching typed lines and
// substituting the live markers for the recorded ones.
import { ConsoleInput, configureTty } from './console-input.js';
import { ConsoleOutput, type OutputSink } from './console-output.js';
import { EmulatorSession } from './emulator-session.js';
import { parseEmulatorArgs, quitKillsTarget } from './emulator-args.js';
import { loadReplay, Replayer } from './replay.js';
import { loadScenario, type Scenario } from './scenario.js';
import { SessionState } from './session-state.js';

const stdoutSink: OutputSink = {
  write(data) {
    process.stdout.write(data);
  },
};

function exitAfterFlush(code: number): void {
  // stdout on a tty is written synchronously on Linux; the callback covers pipes too.
  process.stdout.write('', () => process.exit(code));
}

async function runReplay(file: string): Promise<void> {
  configureTty('none', process.stdin);
  const replayer = new Replayer(loadReplay(file), stdoutSink, process.stdin);
  const code = await replayer.run();
  exitAfterFlush(code ?? 1);
}

async function runScenario(argv: readonly string[]): Promise<void> {
  const args = parseEmulatorArgs(argv);
  const scenario: Scenario =
    args.scenarioFile === undefined ? { replies: [] } : loadScenario(args.scenarioFile);
  const echo = scenario.console?.echo ?? 'conhost';
  configureTty(echo, process.stdin);
  const state = new SessionState(args.stateFile ?? scenario.stateFile, {
    argv: args.argv,
    target: args.target,
    noninvasive: args.noninvasive,
    detachOnExit: args.detachOnExit,
  });
  const output = new ConsoleOutput(stdoutSink, scenario.console ?? {});
  const input = new ConsoleInput(process.stdin);

  // The pty closing (SIGHUP) or a kill (SIGTERM) ends cdb without a quit command. A real cdb dying
  // without detaching takes an invasive live target with it (DebugSetProcessKillOnExit default).
  const killed = (code: number) => () => {
    if (state.record.ended === null) {
      state.update((r) => {
        r.ended = 'killed';
        r.exitCode = code;
        if (!r.detached && quitKillsTarget(args)) r.targetAlive = false;
      });
    }
    output.close();
    process.exit(code);
  };
  process.on('SIGHUP', killed(129));
  process.on('SIGTERM', killed(143));

  const session = new EmulatorSession(args, scenario, output, input, state);
  const code = await session.run();
  input.dispose();
  exitAfterFlush(code);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const replayAt = argv.indexOf('--replay');
  const replayFile = replayAt >= 0 ? argv[replayAt + 1] : undefined;
  if (replayFile !== undefined) await runReplay(replayFile);
  else await runScenario(argv);
}

main().catch((error: unknown) => {
  // A broken scenario is a test bug: say so on the console the test is reading, then exit 2.
  process.stdout.write(`cdb-emulator: ${(error as Error).message}\r\n`);
  exitAfterFlush(2);
});
