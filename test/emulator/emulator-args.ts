// The emulator's command line: its own `--scenario/--state/--replay` options first (the engine puts
// them in debuggerCommandPrefix), then the arguments a real cdb.exe would get from the cdb dialect.

export type TargetKind = 'dump' | 'attach' | 'attach-name' | 'launch' | 'none';

export interface EmulatorArgs {
  scenarioFile?: string;
  stateFile?: string;
  replayFile?: string;
  target: TargetKind;
  dumpPath?: string;
  pid?: number;
  processName?: string;
  program?: string;
  programArgs: string[];
  /** `-pd`: detach, not kill, when the session ends. */
  detachOnExit: boolean;
  /** `-pv` / `-pvr`: noninvasive attach; nothing the debugger does ends the target. */
  noninvasive: boolean;
  symbolPath?: string;
  initialCommand?: string;
  /** Every argument as given, for the state file. */
  argv: string[];
}

/** cdb options that take a value (MS "CDB Command-Line Options"); the rest are flags. */
const VALUED = new Set([
  '-z',
  '-p',
  '-pn',
  '-y',
  '-i',
  '-c',
  '-cf',
  '-srcpath',
  '-sflags',
  '-logo',
  '-loga',
  '-logau',
  '-remote',
  '-e',
  '-xe',
  '-xd',
  '-xn',
  '-xi',
]);

function parsePid(text: string): number {
  // cdb reads `-p` in decimal; "0x1a2b" (hex with prefix) is accepted too.
  const value = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`bad -p value: ${text}`);
  return value;
}

export function parseEmulatorArgs(argv: readonly string[]): EmulatorArgs {
  const args: EmulatorArgs = {
    target: 'none',
    programArgs: [],
    detachOnExit: false,
    noninvasive: false,
    argv: [...argv],
  };
  let i = 0;
  const value = (flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${flag} needs a value`);
    i += 1;
    return v;
  };
  for (; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--scenario') args.scenarioFile = value(arg);
    else if (arg === '--state') args.stateFile = value(arg);
    else if (arg === '--replay') args.replayFile = value(arg);
    else if (arg === '-z') {
      args.target = 'dump';
      args.dumpPath = value(arg);
    } else if (arg === '-p') {
      args.target = 'attach';
      args.pid = parsePid(value(arg));
    } else if (arg === '-pn') {
      args.target = 'attach-name';
      args.processName = value(arg);
    } else if (arg === '-pd') args.detachOnExit = true;
    else if (arg === '-pv' || arg === '-pvr') args.noninvasive = true;
    else if (arg === '-y') args.symbolPath = value(arg);
    else if (arg === '-c') args.initialCommand = value(arg);
    else if (VALUED.has(arg)) value(arg);
    else if (arg.startsWith('-')) continue;
    else {
      // The first bare word is the program to launch; everything after it belongs to the program.
      args.target = 'launch';
      args.program = arg;
      args.programArgs = argv.slice(i + 1);
      break;
    }
  }
  return args;
}

/** True when ending cdb with `q` would end the target too (invasive attach or launch, no `-pd`). */
export function quitKillsTarget(args: EmulatorArgs): boolean {
  if (args.target === 'dump' || args.target === 'none') return false;
  return !args.detachOnExit && !args.noninvasive;
}
