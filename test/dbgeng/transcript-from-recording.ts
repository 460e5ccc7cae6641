// Turns a `--record` session (JSON lines: {t, dir: 'in'|'out', data}) of the real Debugger Engine
// into a transcript file with the fixtures' 5-line header (# source/# tool/# command/# notes/# ---).
// How the bytes are rendered, so a reader can redo it:
//   - the pty output is concatenated; the harness's inputs are not (Wine's console echoes them);
//   - `ESC[<n>C` (cursor right) becomes n blanks: that is how Wine's console draws a blank at the
//     end of a write (the prompt's `0:000> ` arrives as `0:000>` ESC[K ESC[1C);
//   - every other escape sequence is dropped, `\r+\n` becomes `\n`.
// Usage: node --import tsx test/dbgeng/transcript-from-recording.ts <rec.jsonl> <out.txt>
//          --source "<how it was captured>" --notes "<what it shows>"
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const DBGENG_TOOL =
  'Microsoft Debugger Engine 10.0.29507.1001 AMD64 (NuGet Microsoft.Debugging.Platform.DbgEng ' +
  '20260109.1235.0) under wine-8.0 (Debian 8.0~repack-4) through test/targets/dbgeng-host';

interface RecordedChunk {
  t: number;
  dir: 'in' | 'out';
  data: string;
}

// `ESC[1C` (cursor right) and the others: `ESC[?25l`, `ESC[K`, `ESC]0;title BEL`.
// eslint-disable-next-line no-control-regex -- escape sequences are what this renders
const CURSOR_RIGHT_RE = /\x1b\[(\d*)C/g;
// eslint-disable-next-line no-control-regex -- escape sequences are what this drops
const OTHER_ESCAPES_RE = /\x1b\][^\x07]*\x07|\x1b\[[0-9;?]*[A-Za-z]/g;

export function renderRecording(jsonl: string): { body: string; commands: string[] } {
  const chunks = jsonl
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as RecordedChunk);
  const out = chunks
    .filter((c) => c.dir === 'out')
    .map((c) => c.data)
    .join('');
  const commands: string[] = [];
  for (const chunk of chunks.filter((c) => c.dir === 'in').slice(1)) {
    for (const line of chunk.data.split(/\r?\n|\r/)) {
      const command = line.trim();
      // The harness's framing markers (`.echo _abc1_`) are noise in the header.
      if (command.length > 0 && !/^\.echo _[a-z0-9]+_$/.test(command) && !command.startsWith('{'))
        commands.push(command);
    }
  }
  const body = out
    .replace(CURSOR_RIGHT_RE, (_m, n: string) => ' '.repeat(n === '' ? 1 : Number(n)))
    .replace(OTHER_ESCAPES_RE, '')
    .replace(/\r+\n/g, '\n')
    .replace(/^\n+/, '');
  return { body, commands };
}

export function transcriptFromRecording(
  jsonl: string,
  header: { source: string; notes: string },
): string {
  const { body, commands } = renderRecording(jsonl);
  return [
    `# source: ${header.source}`,
    `# tool: ${DBGENG_TOOL}`,
    `# command: ${commands.join(' ; ')}`,
    `# notes: ${header.notes}; rendered by test/dbgeng/transcript-from-recording.ts (escapes dropped, ESC[nC as n blanks, CR CR LF as LF)`,
    '# ---',
    body,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [input, output, ...rest] = process.argv.slice(2);
  const option = (name: string): string => {
    const i = rest.indexOf(name);
    return i >= 0 ? (rest[i + 1] ?? '') : '';
  };
  if (input === undefined || output === undefined) {
    process.stderr.write(
      'usage: transcript-from-recording.ts <rec.jsonl> <out.txt> --source S --notes N\n',
    );
    process.exitCode = 2;
  } else {
    writeFileSync(
      output,
      transcriptFromRecording(readFileSync(input, 'utf8'), {
        source: option('--source'),
        notes: option('--notes'),
      }),
    );
  }
}
