// Long lines of --help text (examples, notes) wrapped to the terminal: commander wraps its own
// option and command tables to its help width, but not text added with addHelpText. The width is
// commander's: the terminal's columns on a TTY, 80 otherwise.
// An example line `  cdb-harness inspect crash.dmp --json      read a dump directly` continues
// under its description column; any other line under its own indentation.

/** The help width commander uses: stdout's columns on a terminal, else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 20
    ? stream.columns
    : 80;
}

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^\s*/.exec(line)?.[0].length ?? 0;
  // The description column of an example line: after the last gap of 2+ spaces past the indent.
  const gap = /^(\s*\S.*?\S\s{2,})\S/.exec(line);
  // An example command is never broken: too long for the line, its description goes below it.
  if (EXAMPLE_RE.test(line)) {
    const command = gap?.[1]?.trimEnd() ?? line;
    if (command.length >= width - 20 || gap?.[1] === undefined) {
      const rest = line.slice(command.length).trim();
      return rest === ''
        ? [command]
        : [command, ...wrapLine(`${' '.repeat(indent + 4)}${rest}`, width)];
    }
  }
  const hang = gap?.[1] !== undefined && gap[1].length < width / 2 + 20 ? gap[1].length : indent;
  const pad = ' '.repeat(Math.min(hang, width - 20));
  const lines: string[] = [];
  let current = line;
  let prefix = '';
  while ((prefix + current).length > width) {
    const room = width - prefix.length;
    const cut = current.lastIndexOf(' ', room);
    const minimum = prefix === '' ? Math.max(indent, hang === indent ? indent : 1) : 1;
    if (cut < minimum) break; // one word longer than the line: left whole
    lines.push((prefix + current.slice(0, cut)).trimEnd());
    current = current.slice(cut + 1).trimStart();
    prefix = pad;
  }
  lines.push(prefix + current);
  return lines;
}

// An example command: `  cdb-harness dump -ma 1234 C:\dumps     full dump of pid 1234`
const EXAMPLE_RE = /^\s*cdb-harness\s/;
// A two-column row: `  -t          the process is about to exit` (a gap of 2+ spaces past the text)
const ROW_RE = /^\s*\S.*?\S\s{2,}\S/;
// A line that starts an item of its own: `- a point`, `* a point`, `1. a step`, `Exit codes:`
const ITEM_RE = /^\s*(?:[-*•]\s|\d+[.)]\s|\S[^:]{0,40}:$)/;

const indentOf = (line: string): number => /^\s*/.exec(line)?.[0].length ?? 0;

/**
 * The help text as written in the source is wrapped by hand at about 100 columns; wrapped again
 * at the terminal's width that gives a long line, a short one, a long one… So a paragraph's
 * lines are joined first (a line under the same indent continues prose; a deeper one continues
 * the description of the two-column row above it), then wrapped once. Example commands, rows and
 * items always start a line of their own, and an example command is never broken: one longer
 * than the terminal is left whole for the terminal to fold, its description below it.
 */
export function reflowHelpText(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const previous = out[out.length - 1];
    const joinable =
      previous !== undefined &&
      previous.trim() !== '' &&
      line.trim() !== '' &&
      !EXAMPLE_RE.test(line) &&
      !ITEM_RE.test(line) &&
      !ROW_RE.test(line) &&
      !previous.trimEnd().endsWith(':') &&
      !EXAMPLE_RE.test(previous) &&
      (ROW_RE.test(previous)
        ? indentOf(line) > indentOf(previous)
        : indentOf(line) === indentOf(previous));
    if (joinable) out[out.length - 1] = `${previous.trimEnd()} ${line.trim()}`;
    else out.push(line);
  }
  return out;
}

/** Every line of `text` at most `width` columns, where spaces allow it; paragraphs reflowed. */
export function wrapHelpText(text: string, width: number): string {
  return reflowHelpText(text)
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
