// One line of records.ndjson as `query` reads it: the members a search needs, each parsed only
// when asked for (json-members.ts finds them without parsing the rest of the line). A record is
// ~3 KB of which a search by code or bucket needs ~250 bytes, and one by frame or module about
// half (the frames, and the module list only when no frame lies in the module).
import type {
  AnalyzeDumpRecord,
  AnalyzeException,
  AnalyzeFrame,
} from '../../report/analyze/analyze-record.js';
import { normalizeModuleName } from '../../report/analyze/skip-modules.js';
import { jsonMembers, walkMembers } from './json-members.js';
import { patternMembers, VALUE, type MemberShapes } from './member-pattern.js';
import { framesInModule, PLAIN_FRAMES } from './module-frames.js';

/** What a match shows of its record: the members a query reads (the rest is never parsed). */
export type QueriedRecord = Pick<AnalyzeDumpRecord, 'file' | 'sha256' | 'bucket'> & {
  exception?: Pick<AnalyzeException, 'code'>;
};

export interface RecordLine {
  /** The members a match shows: file, sha256, bucket, exception code. */
  record: QueriedRecord;
  /** The faulting thread's frames, then a managed exception's stack as frames of their own. */
  frames(): AnalyzeFrame[];
  /** The frames of frames() that lie in `module` (normalizeModuleName's form), in order. */
  moduleFrames(module: string): AnalyzeFrame[];
  /** The modules summary (`modules`), when the record has one. */
  modules(): AnalyzeDumpRecord['modules'] | undefined;
}

const MEMBERS = ['file', 'sha256', 'bucket', 'exception', 'frames', 'modules', 'clrException'];
const CODE = ['code'];
/** An exception whose code is a plain string, given first and once. */
// Sample: {"code":"0xc0000005","name":"Access violation","registers":{"rip":"0x7ff6"}}
const PLAIN_EXCEPTION = String.raw`\{"code":"[^"\\]*"(?:,"(?!code")[^"\\]*":${VALUE})*\}`;
const CODE_START = '{"code":"'.length;
/** Read in the pass over the line when they have these shapes (member-pattern.ts). */
const SHAPES: MemberShapes = new Map([
  ['exception', PLAIN_EXCEPTION],
  ['frames', PLAIN_FRAMES],
]);

/**
 * The record of one line, or undefined when the line is not one JSON object with a `frames`
 * array. Throws (SyntaxError, TypeError) when a member read is not valid JSON or not of its type.
 */
export function readRecordLine(text: string): RecordLine | undefined {
  const read = patternMembers(text, MEMBERS, SHAPES);
  const members = read?.members ?? walkMembers(text, 0, text.length, MEMBERS);
  const framesJson = members?.get('frames');
  if (members === undefined || framesJson?.startsWith('[') !== true) return undefined;
  const record: QueriedRecord = {
    file: stringMember(members.get('file')) ?? '',
    sha256: stringMember(members.get('sha256')) ?? '',
    bucket: objectMember<QueriedRecord['bucket']>(members.get('bucket')) ?? null,
  };
  const exception = members.get('exception');
  if (exception !== undefined && exception !== 'null') {
    const code =
      read?.shaped.has('exception') === true
        ? exception.slice(CODE_START, exception.indexOf('"', CODE_START))
        : stringMember(jsonMembers(exception, 0, exception.length, CODE)?.get('code'));
    if (code === undefined) throw new TypeError('exception without a code');
    record.exception = { code };
  }
  let frames: AnalyzeFrame[] | undefined;
  const clrJson = members.get('clrException');
  const line: RecordLine = {
    record,
    frames() {
      frames ??= allFrames(
        JSON.parse(framesJson) as AnalyzeFrame[],
        objectMember<AnalyzeDumpRecord['clrException']>(clrJson),
      );
      return frames;
    },
    moduleFrames(module) {
      // A managed exception's frames have no module, but its member must still parse.
      const fast =
        frames === undefined && (clrJson === undefined || clrJson === 'null')
          ? framesInModule(framesJson, module, read?.shaped.has('frames'))
          : undefined;
      return (
        fast ??
        line
          .frames()
          .filter((f) => f.module !== undefined && normalizeModuleName(f.module) === module)
      );
    },
    modules: () => objectMember<AnalyzeDumpRecord['modules']>(members.get('modules')),
  };
  return line;
}

/** The faulting thread's frames, and a managed exception's stack as frames of their own. */
function allFrames(frames: AnalyzeFrame[], clr: AnalyzeDumpRecord['clrException']): AnalyzeFrame[] {
  const managed = clr?.exceptions.flatMap((e) => e.stack.map((f) => ({ function: f.function })));
  return managed === undefined || managed.length === 0 ? frames : [...frames, ...managed];
}

/** A string member's value (a JSON string), or undefined when absent. */
function stringMember(json: string | undefined): string | undefined {
  if (json === undefined) return undefined;
  // Sample: "0xc0000005" (no escape: the text between the quotes is the value).
  const plain = json.length >= 2 && json.indexOf('"', 1) === json.length - 1;
  const value: unknown = plain && !json.includes('\\') ? json.slice(1, -1) : JSON.parse(json);
  if (typeof value !== 'string' || !json.startsWith('"')) {
    throw new TypeError('a string member is not a string');
  }
  return value;
}

/** An object member's value (null or an object), or undefined when absent. */
function objectMember<T>(json: string | undefined): T | undefined {
  if (json === undefined) return undefined;
  const value = JSON.parse(json) as unknown;
  if (typeof value !== 'object') throw new TypeError('an object member is not an object');
  return value as T;
}
