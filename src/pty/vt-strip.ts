// Removes terminal control sequences from pty output. A pty hands us arbitrary chunks, so an
// escape sequence can be cut anywhere (`\x1b[?2` | `5l`); the stripper keeps its state between
// chunks instead of running a regex over each chunk. Exact bytes measured from winedbg under
// Wine's conhost:
//   "\u001b]0;Wine Debugger\u0007\u001b[?25lWineDbg starting on pid 01a0\r\r\n\u001b[?25h"
// ConPTY on Windows adds cursor moves, SGR colours and `ESC[K` erases of the same families.

const ESC = 0x1b;
const BEL = 0x07;

type State =
  | 'text'
  | 'esc' // after ESC
  | 'csi' // ESC [ … final byte 0x40-0x7e
  | 'osc' // ESC ] … BEL or ESC \
  | 'osc-esc' // ESC seen inside an OSC (maybe the ST terminator)
  | 'string' // ESC P / ESC X / ESC ^ / ESC _ … ESC \ (DCS, SOS, PM, APC)
  | 'string-esc'
  | 'charset'; // ESC ( B and friends: one more byte

export class VtStripper {
  private state: State = 'text';

  /** Returns the printable text of `chunk`; control sequences (also split ones) are dropped. */
  push(chunk: string): string {
    // Fast path: plain text and no sequence pending.
    if (this.state === 'text' && !hasControl(chunk)) return chunk;
    let out = '';
    let runStart = -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case 'text':
          if (c === ESC) {
            if (runStart >= 0) out += chunk.slice(runStart, i);
            runStart = -1;
            this.state = 'esc';
          } else if (c < 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
            // Other C0 controls (BEL, BS, NUL, SI/SO) carry no text.
            if (runStart >= 0) out += chunk.slice(runStart, i);
            runStart = -1;
          } else if (c === 0x9b) {
            // 8-bit CSI
            if (runStart >= 0) out += chunk.slice(runStart, i);
            runStart = -1;
            this.state = 'csi';
          } else if (runStart < 0) {
            runStart = i;
          }
          break;
        case 'esc':
          if (c === 0x5b) this.state = 'csi';
          else if (c === 0x5d) this.state = 'osc';
          else if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = 'string';
          else if (c >= 0x20 && c <= 0x2f) this.state = 'charset';
          else this.state = 'text'; // two-byte sequence such as ESC 7, ESC =, ESC M
          break;
        case 'csi':
          if (c >= 0x40 && c <= 0x7e) this.state = 'text';
          break;
        case 'osc':
          if (c === BEL) this.state = 'text';
          else if (c === ESC) this.state = 'osc-esc';
          break;
        case 'osc-esc':
          this.state = c === 0x5c ? 'text' : 'osc';
          break;
        case 'string':
          if (c === ESC) this.state = 'string-esc';
          break;
        case 'string-esc':
          this.state = c === 0x5c ? 'text' : 'string';
          break;
        case 'charset':
          this.state = 'text';
          break;
      }
    }
    if (runStart >= 0) out += chunk.slice(runStart);
    return out;
  }
}

function hasControl(chunk: string): boolean {
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk.charCodeAt(i);
    if ((c < 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) || c === 0x9b) return true;
  }
  return false;
}
