// Retention picks its objects among those new since the first sample: the objects of the type the
// first dump already had (a constant collection, or the sessions that were there from the start)
// are left out, so the chains asked for are the leak's. SOS's replies are real recordings of the
// sessions program (dotnet-dump 10); the first dump's list is the first 30 lines of the same
// recorded list (the program adds sessions in address order), the last dump's the whole list.
import { expect } from 'chai';
import type { SosBatchOutputs } from '../../../src/engine/dialects/index.js';
import { traceRetention } from '../../../src/workflows/heap-trend/retention.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

const LIST = transcriptBody('dotnet-dump/dumpheap-mt-short-sessions-linux-net10.txt');
const GCROOT = transcriptBody('dotnet-dump/gcroot-session-state-linux-net10.txt');
const ADDRESSES = LIST.split('\n').filter((l) => /^[0-9a-f]+$/.test(l.trim()));
const SUSPECT = { type: 'CdbHarness.Targets.SessionState', methodTable: '7f77391c40b0' };

/** The last dump's SOS: the recorded list for dumpheap, the recorded chain for gcroot; asked kept. */
function lastDump(asked: string[]) {
  return (commands: readonly string[]): Promise<SosBatchOutputs> =>
    Promise.resolve({
      outputs: commands.map((c) => {
        asked.push(c);
        return c.startsWith('gcroot') ? GCROOT : LIST;
      }),
    });
}

describe('retention: objects new since the first sample', () => {
  it('asks gcroot only about objects the first dump did not have', async () => {
    const asked: string[] = [];
    const last = lastDump(asked);
    const first = (commands: readonly string[]): Promise<SosBatchOutputs> =>
      Promise.resolve({ outputs: commands.map(() => `${ADDRESSES.slice(0, 30).join('\n')}\n`) });
    const [entry] = await traceRetention(last, [SUSPECT], { budgetMs: 60_000, baseline: first });
    expect(ADDRESSES).to.have.length(60);
    expect(entry).to.include({ newObjects: 30, pickedFrom: 'new', sampled: 5 });
    const picked = asked
      .filter((c) => c.startsWith('gcroot'))
      .map((c) => c.split(' ')[1]?.replace(/^0x/, ''));
    expect(picked).to.have.length(5);
    for (const address of picked) expect(ADDRESSES.indexOf(address ?? '')).to.be.at.least(30);
  });

  it('without a first dump, picks over the whole list as before', async () => {
    const asked: string[] = [];
    const last = lastDump(asked);
    const [entry] = await traceRetention(last, [SUSPECT], { budgetMs: 60_000 });
    expect(entry?.pickedFrom).to.equal(undefined);
    expect(asked).to.include(`gcroot 0x${ADDRESSES[0] ?? ''}`);
  });
});
