// The streaming shape shared by parsers whose output can be huge (umdh comparison reports,
// `!dumpheap -stat` on a big heap): a parser object takes one line at a time and builds its record
// on `finish()`. The whole-text entry points feed the same object, so there is one implementation.
// Pure: no I/O; a caller that reads a file hands lines (or chunks, through the splitter) in.

/** A parser fed line by line; `finish()` may be called once. */
export interface LineParser<R> {
  push(line: string): void;
  finish(): R;
}

/** Options every streaming parser accepts. */
export interface StreamOptions<E> {
  /** Called with each entry as soon as it is complete, in output order. */
  onEntry?: (entry: E) => void;
  /**
   * Keep entries in the record's array. Defaults to true without `onEntry` and to false with it,
   * so a caller that aggregates in `onEntry` holds no entries at all.
   */
  keepEntries?: boolean;
}

export function keepsEntries<E>(options: StreamOptions<E>): boolean {
  return options.keepEntries ?? options.onEntry === undefined;
}

/**
 * Feeds `text` to `parser` line by line without building an array of lines. Line ends are LF,
 * CRLF or the pty's CR CR LF; stray CRs inside a line are dropped as `splitLines` does.
 */
export function feedText<R>(parser: LineParser<R>, text: string): R {
  let start = 0;
  const length = text.length;
  while (start <= length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = length;
    let line = text.slice(start, end);
    if (line.includes('\r')) line = line.replace(/\r/g, '');
    parser.push(line);
    start = end + 1;
  }
  return parser.finish();
}

/** Feeds any iterable of lines (an array, a generator) to `parser`. */
export function feedLines<R>(parser: LineParser<R>, lines: Iterable<string>): R {
  for (const line of lines) parser.push(line.includes('\r') ? line.replace(/\r/g, '') : line);
  return parser.finish();
}

/** Splits text that arrives in chunks (a file stream, a pipe) into lines for a line consumer. */
export interface ChunkLineSplitter {
  /** Hands over the next chunk; complete lines go to the consumer at once. */
  write(chunk: string): void;
  /** Hands over the last, unterminated line (if any). */
  end(): void;
}

export function createChunkLineSplitter(onLine: (line: string) => void): ChunkLineSplitter {
  let rest = '';
  return {
    write(chunk: string): void {
      let start = 0;
      let text = chunk;
      if (rest.length > 0) {
        text = rest + chunk;
        rest = '';
      }
      for (;;) {
        const end = text.indexOf('\n', start);
        if (end === -1) break;
        let line = text.slice(start, end);
        if (line.includes('\r')) line = line.replace(/\r/g, '');
        onLine(line);
        start = end + 1;
      }
      rest = text.slice(start);
    },
    end(): void {
      if (rest.length > 0) onLine(rest.includes('\r') ? rest.replace(/\r/g, '') : rest);
      rest = '';
    },
  };
}
