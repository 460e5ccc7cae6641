// ProcDump and cdb habits that are more than a rename (options.ts has the renames): a flag accepted
// and ignored (`-accepteula`), a flag whose value is the rest of the line (`-x DIR app.exe ARGS`),
// ProcDump's bare `-w` after the NAME operand, and flags refused with what does the same here
// (`-wer`, cdb's `-c "…"`), where commander would misread them (`-wer` is `-w er` to it).
// Sources: https://learn.microsoft.com/sysinternals/downloads/procdump (-accepteula, -o, -w, -x,
// -wer) and https://learn.microsoft.com/windows-hardware/drivers/debugger/cdb-command-line-options
// (-c, -i, -z).
import { UsageError } from '../errors.js';

/** The habits a command can list; each command says which it takes (ProcDumpStyleCommand). */
export type Habit = '-accepteula' | '-o' | '-w' | '-wer' | '-x' | '-c' | '-i';

/** What a habit does to the argument list at `i`: the words to put instead, and how many it ate. */
interface Rewrite {
  words: string[];
  /** Arguments consumed, the flag included. */
  used: number;
}

/** The hidden option a bare ProcDump `-w` becomes: "wait for the process the operand names". */
export const WAIT_OPERAND_FLAG = '--wait-for-operand';

function refuse(message: string): never {
  throw new UsageError(message);
}

const HABITS: Record<Habit, (args: readonly string[], i: number, command: string) => Rewrite> = {
  // ProcDump asks to accept its licence once per machine; nothing here has a licence prompt.
  '-accepteula': () => ({ words: [], used: 1 }),
  // `dump -o`: overwrite an existing dump file. `watch` never overwrites (a repeated name gets
  // _2, _3…), so there the flag changes nothing and is accepted for the command line's sake.
  '-o': (_args, _i, command) => ({ words: command === 'dump' ? ['--overwrite'] : [], used: 1 }),
  // ProcDump's `-w` is a flag (`procdump -ma app.exe -w`); ours takes the name as its value
  // (`-w app.exe`). A `-w` with no word after it, or an option after it, is the flag form.
  '-w': (args, i) => {
    const next = args[i + 1];
    return next === undefined || next.startsWith('-')
      ? { words: [WAIT_OPERAND_FLAG], used: 1 }
      : { words: ['--wait', next], used: 2 };
  },
  '-wer': () =>
    refuse(
      '-wer (ProcDump: queue the dump to Windows Error Reporting) is not done here: the dump stays in the output folder (--out); `cdb-harness analyze` triages it',
    ),
  // `-x DIR IMAGE [ARGS…]`: launch IMAGE with ARGS and monitor it, dumps into DIR. Everything
  // after IMAGE belongs to the program, as in ProcDump.
  '-x': (args, i, command) => {
    const dir = args[i + 1];
    const program = args[i + 2];
    if (command !== 'watch') {
      refuse(
        `-x (ProcDump: launch and monitor) is watch's here: cdb-harness watch -x ${dir ?? 'DIR'} ${program ?? 'app.exe'} (add -e 1 -ma -n 1 as with ProcDump); ${command} takes a running process (-w NAME waits for it to start)`,
      );
    }
    if (dir === undefined || program === undefined) {
      refuse('-x needs a dump folder and a program: -x DIR app.exe [ARGS...]');
    }
    const rest = args.slice(i + 3);
    const programArgs = rest[0] === '--' ? rest.slice(1) : rest;
    return { words: ['--out', dir, '--', program, ...programArgs], used: args.length - i };
  },
  // cdb's `-c "cmd1;cmd2"`: commands to run in the debugger. analyze runs a script file instead.
  '-c': (_args, _i, command) =>
    refuse(
      command === 'analyze'
        ? '-c (cdb: commands to run) is --script FILE here: one debugger command per line, run on every dump (see dbgscripts/triage.cdb.txt)'
        : '-c (cdb: commands to run): inspect runs no debugger; run your commands with: cdb-harness analyze DUMP --engine cdb --script FILE (one command per line)',
    ),
  // cdb's `-i ImagePath`: where the module images are.
  '-i': (args, i) => {
    const dir = args[i + 1];
    if (dir === undefined) refuse('-i needs a folder of module images (cdb -i ImagePath)');
    return { words: ['--image-path', dir], used: 2 };
  },
};

/** ProcDump's habits every command that takes a live process knows (`dump`, `watch`). */
export const LIVE_PROCESS_HABITS: readonly Habit[] = ['-accepteula', '-o', '-w', '-wer', '-x'];

export function isHabit(arg: string): arg is Habit {
  return Object.hasOwn(HABITS, arg);
}

/**
 * The habit at `args[i]` when the command takes it: the words that replace it and how many
 * arguments it used; undefined when `args[i]` is no habit of this command.
 */
export function rewriteHabit(
  args: readonly string[],
  i: number,
  habits: readonly string[],
  command: string,
): Rewrite | undefined {
  const arg = args[i] ?? '';
  if (!isHabit(arg) || !habits.includes(arg)) return undefined;
  return HABITS[arg](args, i, command);
}
