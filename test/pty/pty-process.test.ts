// PtyProcess on a real pseudo-terminal: clean text out, raw text for transcripts, Ctrl-C,
// exit events, and killTree leaving no descendant behind.
import { expect } from 'chai';
import { isAlive, processTree } from '../../src/platform/wine/kill-tree.js';
import { PtyProcess, type PtyExit } from '../../src/pty/pty-process.js';

function collect(pty: PtyProcess): { text: () => string; raw: () => string } {
  let text = '';
  let raw = '';
  pty.onData((t) => (text += t));
  pty.onRawData((r) => (raw += r));
  return { text: () => text, raw: () => raw };
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

async function exitWithin(pty: PtyProcess, ms: number): Promise<PtyExit> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      pty.exited,
      new Promise<never>((_r, reject) => {
        timer = setTimeout(() => reject(new Error('no exit event')), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('PtyProcess (real pty)', function () {
  this.timeout(15_000);

  it('delivers clean text to onData and the exact bytes to onRawData', async () => {
    const pty = PtyProcess.spawn({
      file: 'sh',
      args: ['-c', "printf '\\033]0;T\\007a\\033[?25lb\\r\\r\\nc\\r\\n'"],
    });
    const out = collect(pty);
    await exitWithin(pty, 5000);
    await waitFor(() => out.text().includes('c\n'), 2000, 'output');
    expect(out.text()).to.equal('ab\nc\n');
    expect(out.raw()).to.include('\u001b]0;T\u0007');
  });

  it('reports the exit code through onExit and the exited promise', async () => {
    const pty = PtyProcess.spawn({ file: 'sh', args: ['-c', 'exit 3'] });
    let fromListener: PtyExit | null = null;
    pty.onExit((exit) => (fromListener = exit));
    const exit = await exitWithin(pty, 5000);
    expect(exit).to.deep.equal({ exitCode: 3, signal: null });
    expect(fromListener).to.deep.equal(exit);
  });

  it('interrupt() sends Ctrl-C, which the terminal turns into SIGINT', async () => {
    const pty = PtyProcess.spawn({
      file: 'sh',
      args: ['-c', 'trap "echo GOT-INT; exit 7" INT; echo ready; while :; do sleep 0.05; done'],
    });
    const out = collect(pty);
    await waitFor(() => out.text().includes('ready'), 5000, 'ready');
    pty.interrupt();
    const exit = await exitWithin(pty, 5000);
    expect(exit.exitCode).to.equal(7);
    expect(out.text()).to.include('GOT-INT');
  });

  it('killTree() ends the process and all its descendants', async () => {
    const pty = PtyProcess.spawn({
      file: 'sh',
      args: ['-c', 'sleep 100 & sleep 100 & echo up; wait'],
    });
    const out = collect(pty);
    await waitFor(() => out.text().includes('up'), 5000, 'children');
    let tree: number[] = [];
    await waitFor(() => (tree = processTree(pty.pid)).length >= 3, 5000, 'two sleeps');
    expect(tree[0]).to.equal(pty.pid);
    await pty.killTree();
    expect(tree.filter(isAlive)).to.deep.equal([]);
    await exitWithin(pty, 5000);
  });

  it('killTree() also ends children that ignore SIGTERM (escalates to SIGKILL)', async () => {
    const pty = PtyProcess.spawn({
      file: 'sh',
      args: ['-c', 'sh -c \'trap "" TERM; echo up; while :; do sleep 0.1; done\' & wait'],
    });
    const out = collect(pty);
    await waitFor(() => out.text().includes('up'), 5000, 'child');
    const tree = processTree(pty.pid);
    // killTree escalates to SIGKILL on its own deadline; one that waited for the TERM-proof child
    // for ever would show as this test's timeout.
    await pty.killTree();
    expect(tree.filter(isAlive)).to.deep.equal([]);
  });
});
