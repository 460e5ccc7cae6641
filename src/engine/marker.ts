// Fresh end markers. Each command gets its own (a session tag plus a counter), so late output of
// a timed-out command can never be taken for the end of the next one (survey §0.3). The engine
// matches only a whole output line that is exactly the marker, and the echoed command line
// (`.echo __CDBH…__`, `echo __CDBH…__`) always holds more than that, so an echo never matches.
import { randomBytes } from 'node:crypto';

export class MarkerSource {
  private readonly tag = randomBytes(4).toString('hex');
  private counter = 0;

  next(): string {
    this.counter += 1;
    // Only [A-Za-z0-9_]: safe inside `.echo` (stops at `;`) and winedbg's `echo`.
    return `__CDBH_${this.tag}_${this.counter}__`;
  }
}

/** True for a line that holds one of our markers: the marker itself or its echoed command. */
export function isMarkerText(line: string): boolean {
  return line.includes('__CDBH_');
}
