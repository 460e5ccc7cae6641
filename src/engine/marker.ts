// Fresh end markers. Each command gets its own (a session tag plus a counter), so late output of
// a timed-out command can never be taken for the end of the next one. The engine
// matches only a whole output line that is exactly the marker, and the echoed command line
// (`.echo _qzk1_`, `echo _qzk1_`) always holds more than that, so an echo never matches.
//
// Short on purpose: Wine's conhost redraws every echoed character, and winedbg's `echo` took
// 1.5 ms for 2 characters but 4.6 ms for a 19-character marker (measured, bench/engine-overhead.ts).
import { randomInt } from 'node:crypto';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Any marker of any session: `_` + 3 letters + base-36 counter + `_` (for tests and docs). */
export const MARKER_SHAPE = /_[a-z]{3}[0-9a-z]+_/;

export class MarkerSource {
  private readonly tag = Array.from({ length: 3 }, () => LETTERS[randomInt(26)]).join('');
  private readonly own = new RegExp(`_${this.tag}[0-9a-z]+_`);
  private counter = 0;

  next(): string {
    this.counter += 1;
    // Only [a-z0-9_]: safe inside `.echo` (stops at `;`) and winedbg's `echo`.
    return `_${this.tag}${this.counter.toString(36)}_`;
  }

  /** True for a line holding one of this session's markers (the marker or its echoed command). */
  owns(line: string): boolean {
    return this.own.test(line);
  }
}
