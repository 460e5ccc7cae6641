// CommentStreamA (10) / CommentStreamW (11): no header, the stream bytes are the text
// (minidumpapiset.h). `.dump /c "…"` writes one. Trailing NULs are trimmed.
import type { StreamContext } from '../stream-context.js';

/** Comments longer than this are cut: a report line, not a payload. */
const MAX_COMMENT_BYTES = 64 * 1024;

export function parseComment(ctx: StreamContext, wide: boolean): string {
  let bytes = ctx.data.subarray(0, MAX_COMMENT_BYTES);
  if (ctx.data.length > MAX_COMMENT_BYTES)
    ctx.warn(`${ctx.info.name}: comment cut at ${MAX_COMMENT_BYTES} bytes`);
  if (wide && bytes.length % 2 !== 0) bytes = bytes.subarray(0, bytes.length - 1);
  // Sample: "ansi note\0" → "ansi note".
  return bytes.toString(wide ? 'utf16le' : 'latin1').replace(/\0+$/, '');
}
