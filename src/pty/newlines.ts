// Normalises pty line endings to `\n`. winedbg under Wine's conhost ends lines with `\r\r\n`
// (conhost writes `\r\n`, the tty's `onlcr` adds a `\r`); ConPTY writes `\r\n`. A chunk can end
// between the `\r`s and the `\n`, so trailing CRs are held back until the next chunk decides.
// A lone CR (carriage return without newline, as progress output uses) is dropped.

export class NewlineNormalizer {
  private pendingCr = 0;

  push(chunk: string): string {
    if (this.pendingCr === 0 && !chunk.includes('\r')) return chunk;
    let text = (this.pendingCr > 0 ? '\r'.repeat(this.pendingCr) : '') + chunk;
    this.pendingCr = 0;
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) === 0x0d) end--;
    this.pendingCr = text.length - end;
    text = text.slice(0, end);
    return text.replace(/\r+(\n)?/g, (_m, nl: string | undefined) => nl ?? '');
  }

  /** Text still held back (trailing CRs), for the end of the stream: none of it is printable. */
  flush(): string {
    this.pendingCr = 0;
    return '';
  }
}
