// The clean-text view of a pty stream: escape sequences stripped, then line endings normalised.
// Stripping comes first because conhost puts `ESC[?25h` between `\r\r\n` and the next text.
import { NewlineNormalizer } from './newlines.js';
import { VtStripper } from './vt-strip.js';

export class TerminalTextDecoder {
  private readonly vt = new VtStripper();
  private readonly newlines = new NewlineNormalizer();

  push(raw: string): string {
    return this.newlines.push(this.vt.push(raw));
  }
}
