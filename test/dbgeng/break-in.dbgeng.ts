// interrupt() of a live target through the real Debugger Engine (build/dbgeng, under Wine), each
// way it can break in: DebugBreakProcess on the target (native/break-in, run through the same Wine
// as the target), the console's Ctrl-C, and Ctrl-C as the fallback when the helper cannot be run.
// Each time the stop is a break-in, and after the session's detach the program still ticks.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DebuggerSession } from '../../src/engine/debugger-session.js';
import type { SessionOptions } from '../../src/engine/session-types.js';
import { killAllTargets, REPO_ROOT, startTarget, wineEnv } from '../helpers/wine.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

const HELPER = join(REPO_ROOT, 'build', 'native', 'break-in.exe');

async function breakInto(
  breakIn: SessionOptions['breakIn'],
  env: NodeJS.ProcessEnv = wineEnv(),
): Promise<{ kind: string; by?: string; fallback?: string; text: string; stack: string }> {
  const target = await startTarget('idle', ['100']);
  const session = await DebuggerSession.start({
    dialect: 'cdb',
    target: { kind: 'attach', pid: target.pid },
    debuggerPath: DBGENG_CDB,
    env,
    ...(breakIn === undefined ? {} : { breakIn }),
  });
  try {
    await session.go();
    const stop = await session.interrupt({ timeoutMs: 30_000 });
    const stack = (await session.execute('k')).output;
    const end = await session.close();
    expect(end.detached, 'the session detached').to.equal(true);
    expect(await target.isRunning(3_000, /^tick/), 'the program ticks after the detach').to.equal(
      true,
    );
    return {
      kind: stop.kind,
      ...(stop.breakInBy === undefined ? {} : { by: stop.breakInBy }),
      ...(stop.breakInFallback === undefined ? {} : { fallback: stop.breakInFallback }),
      text: stop.text,
      stack,
    };
  } finally {
    await session.close();
  }
}

describe('break-in of a live target through the real Debugger Engine (test:dbgeng)', function () {
  this.timeout(120_000);
  before(requireDbgengRig);
  before(() => {
    if (!existsSync(HELPER)) throw new Error(`${HELPER} is missing: bash scripts/build-native.sh`);
  });
  afterEach(killAllTargets);

  it('DebugBreakProcess: the engine stops on the remote break thread, the program runs on', async () => {
    const stop = await breakInto('debug-break');
    expect(stop.kind).to.equal('break-in');
    expect(stop.by).to.equal('DebugBreakProcess');
    expect(stop.fallback).to.equal(undefined);
    // The thread DebugBreakProcess creates: ntdll!DbgUiRemoteBreakin calls DbgBreakPoint.
    expect(stop.stack).to.match(/ntdll!DbgUiRemoteBreakin/);
  });

  it('Ctrl-C when asked for it: a break-in too, and the program runs on', async () => {
    const stop = await breakInto('ctrl-c');
    expect(stop.kind).to.equal('break-in');
    expect(stop.by).to.equal('Ctrl-C');
  });

  it('Ctrl-C as the fallback when the helper cannot run, saying why', async () => {
    const missing = join(makeTempDir('no-helper'), 'break-in.exe');
    const stop = await breakInto('debug-break', { ...wineEnv(), CDB_HARNESS_BREAK_IN: missing });
    expect(stop.kind).to.equal('break-in');
    expect(stop.by).to.equal('Ctrl-C');
    expect(stop.fallback).to.include(missing).and.to.include('missing');
  });
});
