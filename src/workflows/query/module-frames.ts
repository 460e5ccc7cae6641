// The frames of a record's `frames` member that lie in one module, without parsing the others:
// `query --module ntdll` over 100,000 records spent 0.64 s of its 2.7 s CPU in JSON.parse of
// every frame of every record (bench/query.ts, CPU profile), though only the frames of the module
// are shown. Answered only for the shape JSON.stringify gives a stack of frames: an array of flat
// objects whose names and string values are printable ASCII with no quote, backslash or brace,
// other values true, false or null, and `module` always a string. On that shape JSON.parse of the
// whole array cannot fail, and braces mark each frame's bounds; anything else (escapes, numbers,
// nesting, text that is not ASCII) is left to JSON.parse of the whole array.
import type { AnalyzeFrame } from '../../report/analyze/analyze-record.js';
import { normalizeModuleName } from '../../report/analyze/skip-modules.js';

/** Printable ASCII but `"`, `\`, `{`, `}`: the characters of names and string values. */
const PLAIN = String.raw`[ !#-\[\]-z|~]`;
/** A frame's member: a string, or true, false or null under any name but `module`. */
const MEMBER = String.raw`"${PLAIN}*":"${PLAIN}*"|"(?!module")${PLAIN}*":(?:true|false|null)`;
/** The frames this reads (a member shape for member-pattern.ts: no capturing group). */
// Sample: [{"module":"ntdll","function":"RtlFrame0","offset":"0x0","trust":"debugger"}]
export const PLAIN_FRAMES = String.raw`\[(?:\{(?:${MEMBER})(?:,(?:${MEMBER}))*\}(?:,(?=\{)|(?=\])))*\]`;
const FRAMES = new RegExp(`^${PLAIN_FRAMES}$`);
// Sample: ntdll
const PLAIN_NAME = new RegExp(`^${PLAIN}+$`);

/**
 * The frames of `framesJson` (a `frames` member's JSON text) whose module normalizes to
 * `module` (normalizeModuleName's form), in order, each as JSON.parse reads it; or undefined
 * when the text is not of the shape this reads (then parse it all). `plain`: the text is known
 * to match PLAIN_FRAMES whole.
 */
export function framesInModule(
  framesJson: string,
  module: string,
  plain = false,
): AnalyzeFrame[] | undefined {
  // `.dll` normalizes to the empty name, which every text holds.
  if (module === '' || (!plain && !FRAMES.test(framesJson))) return undefined;
  // A module name made of plain characters normalizes to plain characters, so no other name
  // can be one of these frames' modules.
  if (!PLAIN_NAME.test(module)) return [];
  // A frame whose module normalizes to `module` holds `module` in any ASCII case (its module
  // name is the module's lower-case base name with an extension after it, all ASCII); only the
  // frames holding it are parsed, and each is then judged as the whole array's parse would be.
  const finder = moduleFinder(module);
  finder.lastIndex = 0;
  const found: AnalyzeFrame[] = [];
  for (let hit = finder.exec(framesJson); hit !== null; hit = finder.exec(framesJson)) {
    const open = framesJson.lastIndexOf('{', hit.index);
    const close = framesJson.indexOf('}', hit.index);
    const frame = JSON.parse(framesJson.slice(open, close + 1)) as AnalyzeFrame;
    if (frame.module !== undefined && normalizeModuleName(frame.module) === module) {
      found.push(frame);
    }
    finder.lastIndex = close + 1;
  }
  return found;
}

let finderOf: { module: string; finder: RegExp } | undefined;

/** A global, case-insensitive pattern for `module` (the last one made, kept: one per search). */
function moduleFinder(module: string): RegExp {
  if (finderOf?.module !== module) {
    // Sample: ntdll (any case)
    finderOf = { module, finder: new RegExp(module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi') };
  }
  return finderOf.finder;
}
