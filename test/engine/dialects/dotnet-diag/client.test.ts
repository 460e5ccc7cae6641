// The diagnostics channel client against the real runtime: the lab's C# program run natively
// (test/targets/dotnet), cdbh-diag built by scripts/build-dotnet-diag.sh.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  findDiagHelper,
  NoDiagnosticsChannelError,
  openCounterStream,
  probeDotnet,
  type DiagCounter,
} from '../../../../src/engine/dialects/dotnet-diag/index.js';
import { nativeDotnetSuite, startNativeDotnet } from '../../../helpers/dotnet-native.js';

describe('dotnet-diag client (real runtime)', function () {
  nativeDotnetSuite(this);
  before(function () {
    if (findDiagHelper() === undefined) {
      console.log('      skipped: cdbh-diag is not built (scripts/build-dotnet-diag.sh)');
      this.skip();
    }
  });

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

  it('refuses a process that is not .NET with NoDiagnosticsChannelError (exit 3)', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const error = await probeDotnet({ pid: child.pid ?? 0 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(NoDiagnosticsChannelError);
      expect((error as NoDiagnosticsChannelError).reason).to.equal('not-dotnet');
      expect((error as Error).message).to.match(/is not a \.NET process/);
    } finally {
      child.kill();
    }
  });

  it('tells a .NET process whose channel is off (DOTNET_EnableDiagnostics=0) from a non-.NET one', async () => {
    const target = await startNativeDotnet(['hold', '60000'], { DOTNET_EnableDiagnostics: '0' });
    await target.waitForLine(/^holding /);
    const error = await probeDotnet({ pid: target.pid, env: target.env }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(NoDiagnosticsChannelError);
    expect((error as NoDiagnosticsChannelError).reason).to.equal('no-channel');
    expect((error as Error).message).to.match(
      /runs the \.NET runtime .* publishes no diagnostics channel/,
    );
  });

  it('probes a .NET process: the runtime folder it loaded', async () => {
    const target = await startNativeDotnet(['hold', '60000']);
    await target.waitForLine(/^holding /);
    const probe = await probeDotnet({ pid: target.pid, env: target.env });
    expect(probe.pid).to.equal(target.pid);
    expect(probe.runtime).to.match(/Microsoft\.NETCore\.App\/\d+\.\d+\.\d+$/);
  });
});
