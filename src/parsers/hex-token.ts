// A fast path for the records' hex convention on hot loops (a 100 MB `!dumpheap -stat` has a
// method table on every line): plain lower-case hex digits are handled with a char scan, anything
// else (upper case, backticks, `0x`) goes through normalizeHex, so results are always identical.
import { normalizeHex } from './text.js';

export function hexToken(token: string): string | null {
  const length = token.length;
  if (length === 0) return null;
  let firstSignificant = -1;
  for (let i = 0; i < length; i++) {
    const c = token.charCodeAt(i);
    // 0-9 or a-f
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return normalizeHex(token);
    if (firstSignificant === -1 && c !== 48) firstSignificant = i;
  }
  if (firstSignificant === -1) return '0x0';
  return firstSignificant === 0 ? `0x${token}` : `0x${token.slice(firstSignificant)}`;
}

/**
 * A record's `0x…` address (as parsers write them, e.g. `0x7ffe0000`) back as a number, for
 * arithmetic over parsed records; the one place text becomes an address again.
 */
export function addressOf(hex: string): bigint {
  return BigInt(hex);
}
