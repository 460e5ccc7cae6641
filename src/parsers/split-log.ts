// Splits a debugger log into command/output pairs at the prompt lines. Text before the first
// prompt is the preamble (cdb's startup banner, or output captured before any command).
import { CDB_PROMPT_RE, DOTNET_PROMPT_RE, WINEDBG_PROMPT_RE } from './prompt.js';
import type { Dialect } from './records.js';
import { splitLines } from './text.js';

export interface LogSection {
  /** The prompt as printed: `0:000>`, `1:014:x86>`, `Wine-dbg>`, `>`. */
  prompt: string;
  /** The command typed after it, trimmed (`''` for a bare prompt). */
  command: string;
  /** True for `0:000> cdb: Reading initial command X`: X came from `-c`, not from a prompt. */
  initialCommand: boolean;
  /** The lines after the prompt line up to the next prompt, joined with `\n`. */
  output: string;
  /** 1-based line number of the prompt line in the text. */
  line: number;
}

export interface SplitLog {
  preamble: string;
  sections: LogSection[];
}

// `0:011> cdb: Reading initial command .foreach(exc {sx}) {.catch{sxd ${exc}}}; g; !analyze -v; k; q`
// `0:000> cdb: Reading initial command '$<c:\Users\fuzz1win\funfuzz\util\cdbCmds.txt'`
const INITIAL_COMMAND_RE = /^cdb: Reading initial command (.*)$/;

interface PromptMatch {
  prompt: string;
  command: string;
}

type Matcher = (line: string) => PromptMatch | null;

/** One prompt shape (cdb, winedbg, dotnet-dump): the prompt and command of a line, or null. */
export type PromptMatcher = Matcher;

const cdbPrompt: Matcher = (line) => {
  const match = CDB_PROMPT_RE.exec(line);
  return match?.[1] === undefined ? null : { prompt: match[1], command: match[2] ?? '' };
};

const winedbgPrompt: Matcher = (line) => {
  const match = WINEDBG_PROMPT_RE.exec(line);
  return match?.[1] === undefined ? null : { prompt: match[1], command: match[2] ?? '' };
};

const dotnetPrompt: Matcher = (line) => {
  const match = DOTNET_PROMPT_RE.exec(line);
  return match?.[1] === undefined ? null : { prompt: match[1], command: match[2] ?? '' };
};

/**
 * Which prompt shapes to look for. `> cmd` (dotnet-dump) is only a prompt in a text with no cdb
 * or winedbg prompt at all: inside cdb output, `> 1242:` marks a source line in !analyze.
 */
const MATCHERS_BY_DIALECT: Record<Dialect, (lines: readonly string[]) => Matcher[]> = {
  winedbg: () => [winedbgPrompt],
  cdb: (lines) => (lines.some((l) => cdbPrompt(l) !== null) ? [cdbPrompt] : [dotnetPrompt]),
};

function matchersFor(lines: readonly string[], dialect: Dialect | undefined): Matcher[] {
  if (dialect !== undefined) return MATCHERS_BY_DIALECT[dialect](lines);
  const hasCdb = lines.some((l) => cdbPrompt(l) !== null);
  const hasWine = lines.some((l) => winedbgPrompt(l) !== null);
  if (hasCdb || hasWine) return [cdbPrompt, winedbgPrompt];
  return [dotnetPrompt];
}

export function splitLog(text: string, dialect?: Dialect): SplitLog {
  const lines = splitLines(text);
  const matchers = matchersFor(lines, dialect);
  const sections: LogSection[] = [];
  const preamble: string[] = [];
  let output: string[] = preamble;
  let current: LogSection | undefined;
  const close = (): void => {
    if (current) current.output = output.join('\n');
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const found = readPromptLine(line, matchers);
    if (!found) {
      output.push(line);
      continue;
    }
    close();
    current = { ...found, output: '', line: i + 1 };
    sections.push(current);
    output = [];
  }
  close();
  return { preamble: preamble.join('\n'), sections };
}

/**
 * The prompt shapes of a text known to hold a cdb or winedbg prompt (`dialect` winedbg: a winedbg
 * one): what `splitLog` uses for such a text, for a reader that has seen that prompt.
 */
export function promptMatchers(dialect: Dialect | undefined): PromptMatcher[] {
  return dialect === undefined ? [cdbPrompt, winedbgPrompt] : DECIDING_MATCHERS[dialect];
}

const DECIDING_MATCHERS: Record<Dialect, PromptMatcher[]> = {
  winedbg: [winedbgPrompt],
  cdb: [cdbPrompt],
};

/** The prompt, trimmed command and `-c` flag of a prompt line; null when `line` is no prompt. */
export function readPromptLine(
  line: string,
  matchers: readonly PromptMatcher[],
): { prompt: string; command: string; initialCommand: boolean } | null {
  let found: PromptMatch | null = null;
  for (const matcher of matchers) {
    found = matcher(line);
    if (found) break;
  }
  if (!found) return null;
  let command = found.command.trim();
  let initialCommand = false;
  const initial = INITIAL_COMMAND_RE.exec(command);
  if (initial) {
    initialCommand = true;
    command = unquote((initial[1] ?? '').trim());
  }
  return { prompt: found.prompt, command, initialCommand };
}

/** True when `text` has at least one prompt line that splitLog would cut at. */
export function hasPrompts(text: string, dialect?: Dialect): boolean {
  return splitLog(text, dialect).sections.length > 0;
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith("'") && text.endsWith("'") ? text.slice(1, -1) : text;
}
