// The minimal TypeScript client of the diagnostics IPC protocol against the real runtime: the lab's
// C# program run natively (test/targets/dotnet). No helper needed: it speaks to the socket itself.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ipcProcessInfo,
  startIpcTrace,
} from '../../../../src/engine/dialects/dotnet-diag/ipc-client.js';
import { NoDiagnosticsChannelError } from '../../../../src/engine/dialects/dotnet-diag/index.js';
import { nativeDotnetSuite, startNativeDotnet } from '../../../helpers/dotnet-native.js';
import { makeTempDir } from '../../../helpers/temp-dir.js';

describe('dotnet-diag IPC client in TypeScript (real runtime)', function () {
  nativeDotnetSuite(this);

  it('ProcessInfo: the pid, command line, OS and architecture the runtime reports', async () => {
    const target = await startNativeDotnet(['hold', '60000']);
    await target.waitForLine(/^holding /);
    const info = await ipcProcessInfo(target.pid, { env: target.env });
    expect(info.pid).to.equal(target.pid);
    expect(info.commandLine).to.match(/cdbh-dotnet.* hold 60000$/);
    expect(info.os).to.equal('Linux');
    expect(info.arch).to.equal('x64');
    expect(info.runtimeCookie).to.match(/^[0-9a-f]{32}$/);
  });

  it('an EventPipe session on the exception keyword at level Error: one event per throw, counted from the nettrace stream', async () => {
    const release = join(makeTempDir('ipc-trace'), 'go');
    // 300 throws in all on 2 threads, then the program holds (the session is stopped meanwhile).
    const target = await startNativeDotnet([
      'storm',
      '--wait-file',
      release,
      '-n',
      '300',
      '--rate',
      '0',
      '--threads',
      '2',
      '--hold',
      '60000',
    ]);
    const trace = await startIpcTrace(
      target.pid,
      [{ name: 'Microsoft-Windows-DotNETRuntime', keywords: 0x8000n, level: 2 }],
      { env: target.env, bufferMb: 16 },
    );
    expect(trace.sessionId).to.not.equal(0n);
    writeFileSync(release, '');
    await target.waitForLine(/^storm thrown=300 /);
    const counts = await trace.stop({ env: target.env });
    expect(counts.ended).to.equal(true);
    expect(counts.blocks['Trace']).to.equal(1);
    expect(counts.blocks['MetadataBlock']).to.be.greaterThan(0);
    // The 300 throws, and the one event the runtime writes into every session as it starts (a
    // session with no throw at all counts 1: the EventPipe provider's process information).
    expect(counts.events).to.equal(301);
    expect(target.exited()).to.equal(false);
  });

  it('a pid with no diagnostics socket: NoDiagnosticsChannelError', async () => {
    const error = await ipcProcessInfo(process.pid, { env: { TMPDIR: makeTempDir('ipc-none') } })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NoDiagnosticsChannelError);
  });
});
