// The diagnostics channel's streaming client against the real runtime: the lab's C# program run natively
// (test/targets/dotnet), cdbh-diag built by scripts/build-dotnet-diag.sh.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  openCounterStream,
  openExceptionStream,
  type DiagCounter,
  type DiagException,
} from '../../../../src/engine/dialects/dotnet-diag/index.js';
import { diagHelperSuite, startNativeDotnet } from '../../../helpers/dotnet-native.js';
import { makeTempDir } from '../../../helpers/temp-dir.js';

/** The lab program's `exceptions` acts, started and held until `release` is written. */
async function heldThrower(acts: string) {
  const release = join(makeTempDir('diag-held'), 'go');
  const args = ['exceptions', '--wait-file', release, '-i', '0', '--acts', acts, '--hold', '30000'];
  return { target: await startNativeDotnet(args), release };
}

describe('dotnet-diag client (real runtime)', function () {
  diagHelperSuite(this);

  it('streams System.Runtime counters (GC heap, generation sizes, allocation rate, working set) and stops leaving the target running', async () => {
    const target = await startNativeDotnet(['leak', '-i', '100', '-n', '0', '--managed-kb', '64']);
    const session = await openCounterStream({ pid: target.pid, env: target.env, intervalSec: 1 });
    expect(session.ready.mode).to.equal('counters');
    const seen = new Map<string, DiagCounter>();
    const wanted = [
      'gc-heap-size',
      'gen-0-size',
      'loh-size',
      'alloc-rate',
      'working-set',
      'gc-committed',
    ];
    for await (const sample of session) {
      seen.set(sample.name, sample);
      if (wanted.every((name) => seen.has(name))) break;
    }
    const end = await session.close();
    expect(end?.reason).to.equal('stopped');
    expect(seen.get('gc-heap-size')?.unit).to.equal('MB');
    expect(seen.get('gc-heap-size')?.value).to.be.greaterThan(0);
    expect(seen.get('alloc-rate')?.counterType).to.equal('Sum');
    expect(seen.get('working-set')?.provider).to.equal('System.Runtime');
    expect(target.exited()).to.equal(false);
  });

  // TraceEvent hands an event out only once a later "sorted" event arrives; a thread that throws
  // several times and goes quiet had all but its first throw held until the program exited (the
  // launch test of watch-dotnet.test.ts failed so about half the time). No stacks here: no method
  // events either, so nothing else in the session could release them.
  it('delivers every throw of a thread that then goes quiet, while the program still runs', async () => {
    const { target, release } = await heldThrower('invalid-op,hold');
    const session = await openExceptionStream({ pid: target.pid, env: target.env, frames: 0 });
    writeFileSync(release, '');
    const seen: DiagException[] = [];
    // invalid-op throws once; hold throws twice (an InvalidOperationException, then a
    // WidgetException wrapping a FormatException) and sleeps in the inner catch.
    for await (const event of session) {
      seen.push(event);
      if (seen.length === 4) break;
    }
    const running = !target.exited();
    await session.close();
    expect(seen.map((e) => e.type)).to.deep.equal([
      'System.InvalidOperationException',
      'System.InvalidOperationException',
      'System.FormatException',
      'CdbHarness.Targets.WidgetException',
    ]);
    expect(running, 'all four arrived only as the program exited').to.equal(true);
  });
  // The exception keyword at the Verbose level (which the method events that name frames need)
  // makes the runtime raise ExceptionCatchStart/Stop, ExceptionFinallyStart/Stop,
  // ExceptionFilterStart/Stop and ExceptionThrownStop beside each ExceptionThrown_V1, each with a
  // stack walk in the target; the session's event ID allow-list (.NET 10's CollectTracing5) leaves
  // them out, and the records keep their named frames.
  it('makes the target raise only the runtime events a record needs: the throw and the frame-naming events, no catch/finally events', async () => {
    const { target, release } = await heldThrower('invalid-op,null,inner,hold');
    const session = await openExceptionStream({ pid: target.pid, env: target.env });
    writeFileSync(release, '');
    const seen: DiagException[] = [];
    for await (const event of session) {
      seen.push(event);
      if (seen.length === 4) break;
    }
    const end = await session.close();
    expect(seen.map((e) => e.type)).to.deep.equal([
      'System.InvalidOperationException',
      'System.NullReferenceException',
      'System.FormatException',
      'CdbHarness.Targets.WidgetException',
    ]);
    expect(seen[0]?.frames.join(' ')).to.match(/ThrowInvalidOperation/);
    // ExceptionThrown_V1 80; MethodLoadVerbose 143, ModuleLoad 152, R2RGetEntryPoint 159.
    const ids = Object.keys(end?.runtimeEvents ?? {});
    expect(ids).to.include('80');
    expect(ids.filter((id) => !['80', '143', '152', '159'].includes(id))).to.deep.equal([]);
  });
});
