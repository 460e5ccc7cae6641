// processDump(): the typed state of the committed example dumps (real Wine dumps, see
// examples/dumps/README.md): numbers stay numbers, each frame carries its module object and its
// lookup address, the threads asked for are the threads walked, and a bad file is an answer.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processDump } from '../../src/processor/process-dump.js';
import type { ProcessState } from '../../src/processor/process-state.js';
import { inspectJson } from '../../src/report/inspect/inspect-json.js';
import { processSupplied } from '../helpers/supplied.js';
import { richDump } from '../minidump/helpers/rich-dump.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

async function processed(
  name: string,
  threads: 'all' | 'exception' | 'none',
): Promise<ProcessState> {
  const state = await processSupplied(join(EXAMPLES, name), { threads }, { recordedPaths: false });
  if (!state.ok) throw new Error(`${name}: ${state.error.message}`);
  return state;
}

describe('processDump (src/processor/process-dump.ts)', () => {
  it('keeps addresses as bigint and hands each frame the module object of the module list', async () => {
    const state = await processed('av-write-a.dmp', 'all');
    expect(state.arch).to.equal('amd64');
    const exception = state.exception;
    expect(exception?.code).to.equal(0xc0000005);
    expect(typeof exception?.address).to.equal('bigint');
    expect(exception?.access?.kind).to.equal('write');
    expect(state.modules).to.include(exception?.module);
    const frames = state.threads.find((t) => t.faulting)?.callStack?.frames ?? [];
    expect(frames.length).to.be.greaterThan(1);
    expect(frames[0]?.address).to.equal(exception?.address);
    for (const frame of frames) {
      expect(typeof frame.address).to.equal('bigint');
      if (frame.module !== undefined) expect(state.modules).to.include(frame.module);
    }
  });

  it('decides the lookup address once: the context frame at its address, callers one byte back', async () => {
    const state = await processed('cpp-throw.dmp', 'exception');
    const frames = state.threads.find((t) => t.faulting)?.callStack?.frames ?? [];
    expect(frames[0]?.trust).to.equal('context');
    expect(frames[0]?.instruction).to.equal(frames[0]?.address);
    const callers = frames.slice(1);
    expect(callers.length).to.be.greaterThan(0);
    for (const frame of callers) expect(frame.instruction).to.equal(frame.address - 1n);
  });

  it('walks the threads asked for: every one, the exception thread, or none', async () => {
    const all = await processed('attach-break.dmp', 'all');
    const one = await processed('attach-break.dmp', 'exception');
    const none = await processed('attach-break.dmp', 'none');
    expect(all.threads.length).to.equal(2);
    expect(all.threads.every((t) => t.callStack !== undefined)).to.equal(true);
    expect(
      one.threads.filter((t) => t.callStack !== undefined).map((t) => t.faulting),
    ).to.deep.equal([true]);
    expect(none.threads.some((t) => t.callStack !== undefined)).to.equal(false);
    expect(none.images).to.equal(undefined);
    expect(none.exception?.registers).to.equal(undefined);
    // A breakpoint's context is past the int3 the exception record names.
    expect(one.exception?.registers?.['rip']).to.equal((one.exception?.address ?? 0n) + 1n);
  });

  it('turns to text only at the inspect edge', async () => {
    const state = await processed('av-write-a.dmp', 'exception');
    const json = inspectJson(state);
    if (!json.ok) throw new Error('not ok');
    expect(json.exception?.address).to.equal(`0x${state.exception?.address.toString(16)}`);
    const frame = json.threads.find((t) => t.faulting === true)?.stack?.frames[1];
    const typed = state.threads.find((t) => t.faulting)?.callStack?.frames[1];
    expect(frame?.address).to.equal(`0x${typed?.address.toString(16)}`);
    expect(frame?.module).to.equal(typed?.module?.name);
  });

  it('reads for triage only what a triage record shows, and the rest as before', async () => {
    const path = join(makeTempDir('process-dump-triage'), 'rich.dmp');
    writeFileSync(path, richDump());
    const all = await processDump(path, { threads: 'none' });
    const triage = await processDump(path, { threads: 'none', streams: 'triage' });
    if (!all.ok || !triage.ok) throw new Error('expected both to read');
    // The synthetic dump has each of the four streams triage leaves out.
    expect(all.memory.info).to.not.equal(undefined);
    expect(all.handles).to.not.equal(undefined);
    expect(all.unloadedModules).to.have.length(1);
    expect(all.process.privateUsage).to.be.a('number');
    expect(triage.memory.info).to.equal(undefined);
    expect(triage.handles).to.equal(undefined);
    expect(triage.unloadedModules).to.deep.equal([]);
    expect(triage.process.privateUsage).to.equal(undefined);
    // Everything else is the same state.
    const rest = (state: ProcessState) => ({
      ...state,
      memory: { ...state.memory, info: undefined },
      handles: undefined,
      unloadedModules: [],
      process: { ...state.process, privateUsage: undefined, workingSetSize: undefined },
    });
    expect(rest(triage)).to.deep.equal(rest(all));
    // heap-trend's regions still get their MemoryInfoList.
    const regions = await processDump(path, { threads: 'none', streams: 'triage', regions: true });
    expect(regions.ok && regions.regions?.regions?.length).to.be.greaterThan(0);
  });

  it('answers a file that is not a dump with ok: false and the reason, never a throw', async () => {
    const dir = makeTempDir('process-dump');
    const path = join(dir, 'not-a-dump.dmp');
    writeFileSync(path, 'PK\x03\x04 this is a zip file, not a minidump');
    const state = await processDump(path);
    expect(state.ok).to.equal(false);
    if (state.ok) return;
    expect(state.error.code).to.equal('BAD_DUMP');
    expect(state.error.message).to.match(/not a minidump/);
    expect(state.fileSize).to.equal(undefined);
  });

  it('reads the bytes a caller already holds, not the file, and finds the same state', async () => {
    const path = join(EXAMPLES, 'cpp-throw.dmp');
    const fromFile = await processSupplied(path, { threads: 'all' }, { recordedPaths: false });
    // The path names no file at all: everything must come from the bytes.
    const missing = join(makeTempDir('process-dump-bytes'), 'gone.dmp');
    const fromBytes = await processSupplied(
      missing,
      { bytes: readFileSync(path), threads: 'all' },
      { recordedPaths: false },
    );
    if (!fromFile.ok || !fromBytes.ok) throw new Error('expected both to read');
    const text = (state: ProcessState) =>
      JSON.stringify({ ...inspectJson({ ...state, file: 'x', bytesRead: 0 }) });
    expect(text(fromBytes)).to.equal(text(fromFile));
    expect(fromBytes.threads.find((t) => t.faulting)?.callStack?.frames.length).to.be.greaterThan(
      1,
    );
    // A cut copy in memory is a cut dump, as the cut file would be.
    const cut = await processDump(missing, { bytes: readFileSync(path).subarray(0, 20) });
    expect(cut.ok).to.equal(false);
  });
});
