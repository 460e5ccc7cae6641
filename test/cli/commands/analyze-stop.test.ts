// How `analyze` ends when it is told to stop, and who may write into its --out (issue 30, item
// 13): SIGTERM (systemd, Kubernetes, `kill`) is a stop like Ctrl-C (the records in flight, then
// an interrupted summary, exit 130), and a second run into an --out another run is writing is
// refused instead of doubling every record. Real CLI processes on generated dumps.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { dumpBatch } from '../../queue/queue-helpers.js';
import type { AnalyzeSummary } from '../../../src/report/analyze/analyze-record.js';

describe('analyze: SIGTERM and a second run into the same --out', function () {
  this.timeout(180_000);

  it('treats SIGTERM like Ctrl-C: summary written, interrupted, exit 130', async () => {
    const input = dumpBatch(400);
    const out = makeTempDir('sigterm-out');
    let signalled = false;
    const run = await runCli(
      ['analyze', input, '--engine', 'builtin', '--jobs', '1', '--threads', '0', '--out', out],
      {
        onStderr: (soFar, child) => {
          if (!signalled && /\b\d+\/400 +ok [1-9]/.test(soFar)) {
            signalled = true;
            child.kill('SIGTERM');
          }
        },
      },
    );
    expect(signalled, run.stderr).to.equal(true);
    expect(run.code, run.stderr).to.equal(130);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as AnalyzeSummary;
    expect(summary.interrupted).to.equal(true);
    expect(summary.dumps).to.be.within(1, 399);
    expect(existsSync(join(out, 'report.html'))).to.equal(true);
    // The lock is gone with the run.
    expect(existsSync(join(out, '.cdb-harness.lock'))).to.equal(false);
  });

  it('refuses a second run into an --out another live run holds, and takes over a dead run’s lock', async () => {
    const input = dumpBatch(2);
    const out = makeTempDir('locked-out');
    // A live process holds the lock, as a running analyze does (out-dir.ts writes "PID HOST").
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(join(out, '.cdb-harness.lock'), `${holder.pid} ${hostname()}\n`);
      const refused = await runCli(['analyze', input, '--engine', 'builtin', '--out', out]);
      expect(refused.code, refused.stderr).to.equal(2);
      expect(refused.stderr).to.match(
        new RegExp(`--out .* is in use by another analyze run \\(pid ${holder.pid} on `),
      );
      expect(existsSync(join(out, 'records.ndjson'))).to.equal(false);
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
    // The holder is gone: its lock is stale and taken over.
    const run = await runCli(['analyze', input, '--engine', 'builtin', '--out', out]);
    expect(run.code, run.stderr).to.equal(0);
    expect(readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n')).to.have.length(2);
    expect(existsSync(join(out, '.cdb-harness.lock'))).to.equal(false);
  });
});
