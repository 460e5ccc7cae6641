// closeConsoleAtExit's decisions on node-pty's ConPTY agent (@lydell/node-pty 1.1.0
// windowsPtyAgent.js: _$onProcessExit, _ptyNative.kill, _pty, _outSocket), the agent's native side
// stood in for; its real run under Windows node and Wine's conhost is test/windows/pty.windows.ts.
import { expect } from 'chai';
import { Socket } from 'node:net';
import type { IPty } from '@lydell/node-pty';
import { closeConsoleAtExit } from '../../../src/platform/windows/pty-release.js';

function agentWith(out: Socket) {
  const killed: number[] = [];
  const exits: number[] = [];
  const agent = {
    _pty: 7,
    _outSocket: out,
    _ptyNative: { kill: (id: number) => killed.push(id) },
    _$onProcessExit(code: number) {
      exits.push(code);
    },
  };
  return { pty: { _agent: agent } as unknown as IPty, agent, killed, exits };
}

describe('platform/windows/pty-release closeConsoleAtExit', () => {
  it('closes the pseudo console once, after node-pty has seen the exit', () => {
    const out = new Socket();
    Object.defineProperty(out, 'pending', { value: false });
    const rig = agentWith(out);
    expect(closeConsoleAtExit(rig.pty)).to.equal(true);
    rig.agent._$onProcessExit(3);
    expect(rig.exits).to.deep.equal([3]);
    expect(rig.killed).to.deep.equal([7]);
    out.destroy();
  });

  it('waits for the output socket to connect when the child ended first', () => {
    const out = new Socket();
    const rig = agentWith(out);
    closeConsoleAtExit(rig.pty);
    rig.agent._$onProcessExit(0);
    expect(rig.killed, 'closed before node-pty could hear the end').to.deep.equal([]);
    out.emit('connect');
    expect(rig.killed).to.deep.equal([7]);
    out.destroy();
  });

  it('changes nothing where node-pty has other fields (a later release, or Linux)', () => {
    expect(closeConsoleAtExit({} as IPty)).to.equal(false);
    expect(closeConsoleAtExit({ _agent: { _pty: 1 } } as unknown as IPty)).to.equal(false);
  });
});
