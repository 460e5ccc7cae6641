// Saved transcripts often start with the prompt and the command that produced the output. Each
// parser skips such echo lines instead of reporting them as unplaced. Shapes seen in transcripts:
//   0:000> !heap -s
//   0:000> !heap -stat -h 00310000        (with a trailing space)
//   1:0:011> !heap -l
//   > clrstack -all                       (dotnet-dump analyze REPL)
//   > umdh.exe log1.txt log2.txt          (console prompt shown by the author)
const PROMPT_RE = /^\s*(?:\d+(?::\d+)+(?::x86)?>|>)\s?/;

/** True for a prompt line (`0:000> cmd`, `> cmd`), the echo of the command that ran. */
export function isPromptLine(line: string): boolean {
  return PROMPT_RE.test(line);
}

/** True when `line` is exactly the command (no prompt), e.g. `!heap -s` in a page that dropped it. */
export function isBareCommand(line: string, command: RegExp): boolean {
  return command.test(line.trim());
}
