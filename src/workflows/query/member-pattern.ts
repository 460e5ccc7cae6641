// The top-level members of a record line as JSON.stringify writes it (no white space, plain
// member names), found by one regular expression instead of a walk over every character:
// V8 compiles a regular expression to machine code (irregexp), and over `query`'s 100,000-record
// bench the pattern took 0.09 s for every 30,000 lines where the character walk of
// json-members.ts took 0.19 s. It is the walk's first attempt, never its replacement: on a line
// it does not fully match (white space between tokens, an escaped member name, brackets nested
// deeper than it counts, a torn or hand-edited line) it answers "cannot tell" and the walk
// reads the line, so every answer it does give is the walk's answer.
//
// Where the pattern matches, the walk would have seen the same things: strings end at the same
// quote (a backslash escapes the next character, so a quote closes a string when an even run of
// backslashes precedes it, RFC 8259 section 7), brackets of either kind open and close a nested
// value as the walk counts them, and each member is `"name":value` with commas between and the
// value not empty.

/** Brackets nested in a member's value that the pattern follows (a record needs 4). */
const NESTING = 6;
/** Longer lines are left to the walk: the pattern's backtracking stack grows with the text. */
const MAX_CHARS = 1 << 20;

// Sample: "C:\\dumps\\a \"quoted\".dmp"
const STRING = String.raw`"[^"\\]*(?:\\[^][^"\\]*)*"`;

/** The text of a value nested at most `depth` brackets deep, brackets of either kind paired. */
function nested(depth: number): string {
  // Sample: {"name":"x.exe","pid":1244} (inside a member's value)
  let inner = String.raw`(?:${STRING}|[^"{}\[\]])*`;
  for (let level = 1; level < depth; level++) {
    inner = String.raw`(?:${STRING}|[^"{}\[\]]|[{\[]${inner}[}\]])*`;
  }
  return String.raw`[{\[]${inner}[}\]]`;
}

/**
 * A member's value: not empty, starting with a character that is not white space (the walk
 * trims it); colons and commas only inside strings or brackets.
 */
// Sample: [{"module":"ntdll","function":"RtlFrame0"}]
export const VALUE = String.raw`(?=[^\s,:}\]])(?:${STRING}|[^"{}\[\],:]|${nested(NESTING)})+`;

// Sample: { (the line's first character)
const HEAD = /[ \t\r\n]*\{/y;

/** What the pattern read: the wanted members, and those of them whose value has their shape. */
export interface PatternMembers {
  /** As jsonMembers gives them. */
  members: Map<string, string>;
  /** The members (the last of a name given twice) whose value matched the shape given for them. */
  shaped: ReadonlySet<string>;
}

/**
 * A member's value that a caller knows more of when it has a shape (a pattern of its own, no
 * capturing group): `query` reads a record's exception code and the frames of one module in the
 * same pass as the line when they have the shape JSON.stringify gives them, instead of a second
 * pattern over each (bench/query.ts: 0.25 of 1.5 s CPU, CPU profile).
 */
export type MemberShapes = ReadonlyMap<string, string>;

const NO_SHAPES: MemberShapes = new Map();
const NONE_SHAPED: ReadonlySet<string> = new Set();

/**
 * One sticky pattern per list of wanted names and shapes (constants of their callers: found by
 * identity, as joining the names for each line cost 4 % of a search).
 */
const steps = new Map<readonly string[], { shapes: MemberShapes; step: RegExp }>();
/** Lists remembered (more only when a caller makes a list for each call). */
const MAX_STEPS = 16;

/**
 * The pattern of one step: the members not wanted, then a wanted one (groups 2k+1 and 2k+2 for
 * the k-th shape, then the same two for any value) or the last one, then a comma (the last
 * group) or the object's end.
 */
function stepPattern(wanted: readonly string[], shapes: MemberShapes): RegExp {
  const known = steps.get(wanted);
  if (known?.shapes === shapes) return known.step;
  const quote = (name: string) => name.replace(/[.*+?^${}()|[\]\\"]/g, '\\$&');
  const names = wanted.map(quote).join('|');
  const unwanted = String.raw`"(?!(?:${names})")[^"\\]*":${VALUE}`;
  const kept = [...shapes].map(([name, shape]) => String.raw`"(${quote(name)})":(${shape})`);
  kept.push(String.raw`"(${names})":(${VALUE})`);
  // Sample: "schemaVersion":1,"file":"/srv/app-0.dmp", (group 1 file, group 2 its value)
  const step = new RegExp(
    String.raw`(?:${unwanted},)*(?:${kept.join('|')}|${unwanted})(?:(,)|\}[ \t\r\n]*$)`,
    'y',
  );
  if (steps.size >= MAX_STEPS) steps.clear();
  steps.set(wanted, { shapes, step });
  return step;
}

/**
 * The members named in `wanted` of the JSON object that is the whole of `text`, as their
 * values' JSON text, as jsonMembers reads them, and which of them have the shape `shapes` gives
 * their name; or null when the pattern cannot tell (then only the walk can).
 */
export function patternMembers(
  text: string,
  wanted: readonly string[],
  shapes: MemberShapes = NO_SHAPES,
): PatternMembers | null {
  if (text.length > MAX_CHARS || wanted.length === 0) return null;
  HEAD.lastIndex = 0;
  if (!HEAD.test(text)) return null;
  const step = stepPattern(wanted, shapes);
  const members = new Map<string, string>();
  let shaped: Set<string> | undefined;
  step.lastIndex = HEAD.lastIndex;
  try {
    for (;;) {
      const match = step.exec(text);
      if (match === null) return null;
      for (let group = 1; group < match.length - 1; group += 2) {
        const name = match[group];
        if (name === undefined) continue;
        members.set(name, match[group + 1]!.trimEnd());
        if (group < match.length - 3) (shaped ??= new Set()).add(name);
        else shaped?.delete(name);
        break;
      }
      if (match[match.length - 1] === undefined) {
        return { members, shaped: shaped ?? NONE_SHAPED };
      }
    }
  } catch {
    // The pattern's stack ran out (RangeError): the walk has none.
    return null;
  }
}
