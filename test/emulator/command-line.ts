// How cdb cuts one input line into commands, and the two commands the engine's framing relies on:
// `.echo` and `.printf`. `;` separates commands unless it is inside a quoted string or a
// `.block{…}` (Microsoft's `.echo` and `.block` pages under
// https://learn.microsoft.com/windows-hardware/drivers/debuggercmds/); `$$` comments run to the
// next `;` (the `$$` comment token page there).

/** Split an input line at top-level `;`. Each piece is trimmed; empty pieces are dropped. */
export function splitCommandChain(line: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quoted = false;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quoted) {
      current += ch;
      if (ch === '\\' && i + 1 < line.length) {
        current += line[i + 1] ?? '';
        i += 1;
      } else if (ch === '"') quoted = false;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '{') depth += 1;
    else if (ch === '}') depth = Math.max(0, depth - 1);
    else if (ch === ';' && depth === 0) {
      commands.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  commands.push(current);
  return commands.map(stripComment).filter((c) => c !== '');
}

function stripComment(command: string): string {
  const trimmed = command.trim();
  return trimmed.startsWith('$$') ? '' : trimmed;
}

// ".block{ .echo hi }" -> ".echo hi" (BugId wraps each command this way)
const BLOCK = /^\.block\s*\{(.*)\}$/s;

/** The commands inside `.block{…}`, or null when the command is not a block. */
export function unwrapBlock(command: string): string[] | null {
  const match = BLOCK.exec(command);
  return match === null ? null : splitCommandChain(match[1] ?? '');
}

/** `.echo` text: a quoted argument loses its quotes; otherwise the text as typed. */
export function echoText(command: string): string {
  const rest = command.slice('.echo'.length).trim();
  // '"COMMAND_COMPLETED_MARKER_1"' -> quoted form, printed without the quotes
  const quoted = /^"([^"]*)"$/.exec(rest);
  return quoted === null ? rest : (quoted[1] ?? '');
}

/**
 * A cdb numeric expression as `.printf` arguments use them. The default radix is 16, so `3d` and
 * `0x3d` are both 61; `0n61` is decimal, `0t75` octal, `0y111101` binary.
 */
export function evaluateNumber(text: string): number {
  const t = text.trim().replace(/`/g, '');
  let match: RegExpExecArray | null;
  // "0x3D", "0n61", "0t75", "0y111101"
  if ((match = /^0x([0-9a-f]+)$/i.exec(t)) !== null) return parseInt(match[1] ?? '', 16);
  if ((match = /^0n([0-9]+)$/i.exec(t)) !== null) return parseInt(match[1] ?? '', 10);
  if ((match = /^0t([0-7]+)$/i.exec(t)) !== null) return parseInt(match[1] ?? '', 8);
  if ((match = /^0y([01]+)$/i.exec(t)) !== null) return parseInt(match[1] ?? '', 2);
  // "3d", "41" (default radix 16)
  if (/^[0-9a-f]+$/i.test(t)) return parseInt(t, 16);
  throw new Error(`Couldn't resolve error at '${text.trim()}'`);
}

function splitArgs(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (quoted && ch === '\\') {
      current += ch + (text[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      args.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim() !== '' || args.length > 0) args.push(current.trim());
  return args;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, (_all, ch: string) => {
    if (ch === 'n') return '\n';
    if (ch === 'r') return '\r';
    if (ch === 't') return '\t';
    return ch;
  });
}

/**
 * Format `.printf "fmt", args…` the way cdb does for the conversions the harness uses:
 * `%c %d %u %x %X %p %s %%` and the escapes `\n \r \t \" \\`. `%s` in real cdb reads a string
 * from target memory; here it takes a quoted literal, which is all a marker needs.
 */
export function formatPrintf(command: string): string {
  let rest = command.slice('.printf'.length).trim();
  // Options such as "/D" or "/ow" come before the format string.
  while (rest.startsWith('/')) rest = rest.replace(/^\/\S+\s*/, '');
  const args = splitArgs(rest);
  const format = args.shift() ?? '';
  // "\"%c%c%c\\n\"" -> the text between the quotes
  const fmt = /^"((?:[^"\\]|\\.)*)"$/s.exec(format);
  if (fmt === null) throw new Error(`Syntax error in '${command}'`);
  const template = unescape(fmt[1] ?? '');
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const ch = template[i] ?? '';
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const conv = template[i + 1] ?? '';
    i += 1;
    if (conv === '%') {
      out += '%';
      continue;
    }
    const arg = args.shift();
    if (arg === undefined) throw new Error(`Numeric expression missing from <EOL>`);
    if (conv === 's') {
      // "\"text\"" -> text
      const str = /^"((?:[^"\\]|\\.)*)"$/s.exec(arg);
      out += str === null ? arg : unescape(str[1] ?? '');
      continue;
    }
    const n = evaluateNumber(arg);
    if (conv === 'c') out += String.fromCharCode(n & 0xffff);
    else if (conv === 'd' || conv === 'u') out += String(n);
    else if (conv === 'x') out += n.toString(16);
    else if (conv === 'X') out += n.toString(16).toUpperCase();
    else if (conv === 'p') out += n.toString(16).padStart(16, '0');
    else throw new Error(`Syntax error in '${command}'`);
  }
  return out;
}
