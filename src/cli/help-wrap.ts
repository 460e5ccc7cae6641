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

/** Every line of `text` at most `width` columns, where spaces allow it. */
export function wrapHelpText(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
