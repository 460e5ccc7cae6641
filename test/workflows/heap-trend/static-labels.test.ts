// SOS's static-variable label checked against the classes' statics (issue 32), replayed from one
// real dump of the lab program's --cache mode (scripts/record-dotnet-dump.sh cache): gcroot labels
// the SessionCache.Entries dictionary "List<String>.Ballast" (its neighbour in the statics
// array); dumpdomain, dumpmodule -mt and dumpclass of the same dump say SessionCache.Entries.
import { expect } from 'chai';
import { parseGcRoot } from '../../../src/parsers/gc-root.js';
import {
  groupRetention,
  labelledHolders,
} from '../../../src/report/heap-trend/retention-chains.js';
import { retentionGroups } from '../../../src/report/heap-trend/retention-groups.js';
import {
  checkStaticLabels,
  isFrameworkModule,
  labelField,
} from '../../../src/workflows/heap-trend/static-labels.js';
import { readTranscriptFile, TRANSCRIPTS_DIR } from '../../parsers/transcripts.js';
import { join } from 'node:path';

const FILES = [
  'gcroot-cache-session-state-linux-net10.txt',
  'dumpdomain-cache-linux-net10.txt',
  'dumpmodule-mt-cache-linux-net10.txt',
  'dumpclass-session-cache-linux-net10.txt',
];
const recorded = FILES.map((f) =>
  readTranscriptFile(join(TRANSCRIPTS_DIR, 'dotnet-dump', f), `dotnet-dump/${f}`),
);
const [gcroot, dumpdomain] = recorded;
const DICTIONARY =
  'System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState>';
const SOS_SAID = 'static variable: System.Collections.Generic.List<System.String>.Ballast';

/** SOS on the recorded dump: each recorded command gives its recorded reply, others nothing. */
function replay(asked: string[]) {
  return (commands: readonly string[]) => {
    asked.push(...commands);
    return Promise.resolve({
      outputs: commands.map((c) => recorded.find((t) => t.command === c)?.body ?? ''),
    });
  };
}

const records = () => [parseGcRoot(gcroot?.body ?? '', gcroot?.command ?? '')];

describe('SOS static labels, checked against the classes’ statics (recorded --cache dump)', () => {
  it('finds SessionCache.Entries where SOS says List<String>.Ballast, and says both', async () => {
    const holders = labelledHolders(records());
    expect([...holders.values()]).to.deep.equal([SOS_SAID]);
    const asked: string[] = [];
    const checks = await checkStaticLabels(replay(asked), holders, dumpdomain?.body, () => 5000);
    // Only the program's own module is listed; only its types' statics are read.
    expect(asked.filter((c) => c.startsWith('dumpmodule'))).to.have.length(1);
    expect(asked.filter((c) => c.startsWith('dumpclass')).length).to.be.greaterThan(5);
    expect([...checks.values()]).to.deep.equal([
      { field: 'CdbHarness.Targets.SessionCache.Entries', agrees: false },
    ]);
    const [top] = groupRetention(records(), checks);
    expect(top).to.include({
      holder: DICTIONARY,
      staticLabel: SOS_SAID,
      labelChecked: true,
      staticField: 'CdbHarness.Targets.SessionCache.Entries',
      labelAgrees: false,
    });
    expect(top?.chain).to.include(
      `${DICTIONARY} (static variable: CdbHarness.Targets.SessionCache.Entries, checked; SOS said System.Collections.Generic.List<System.String>.Ballast)`,
    );
    const [group] = retentionGroups(
      [{ type: 'CdbHarness.Targets.SessionState', sampled: 1, roots: top ? [top] : [] }],
      undefined,
    );
    expect(group?.text).to.include(
      'held by System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState> (static variable: CdbHarness.Targets.SessionCache.Entries, checked; SOS said',
    );
  });

  it('a label that names the right field is said to be checked, with no correction', async () => {
    const [address] = labelledHolders(records()).keys();
    const holders = new Map([[address ?? 0n, 'static variable: X.Entries']]);
    const checks = await checkStaticLabels(replay([]), holders, dumpdomain?.body, () => 5000);
    expect([...checks.values()]).to.deep.equal([
      { field: 'CdbHarness.Targets.SessionCache.Entries', agrees: true },
    ]);
  });

  it('stays SOS’s guess when nothing could be checked (SOS failed, no module of the program)', async () => {
    const failing = () => Promise.reject(new Error('dotnet-dump analyze exited with code 1'));
    const holders = labelledHolders(records());
    expect((await checkStaticLabels(failing, holders, dumpdomain?.body, () => 5000)).size).to.equal(
      0,
    );
    expect((await checkStaticLabels(replay([]), holders, undefined, () => 5000)).size).to.equal(0);
    const [top] = groupRetention(records(), new Map());
    expect(top).to.include({ staticLabel: SOS_SAID, labelChecked: false });
    expect(top?.chain.join(' ← ')).to.include(`(${SOS_SAID}: SOS's guess, not checked)`);
  });

  it('reads label fields and tells the framework’s modules from the program’s', () => {
    expect(labelField(SOS_SAID)).to.equal('Ballast');
    expect(
      labelField(
        'static variable: System.Runtime.CompilerServices.ConditionalWeakTable<T1, T2>.s_serializationInfoTable',
      ),
    ).to.equal('s_serializationInfoTable');
    expect(
      isFrameworkModule(
        '/usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/System.Private.CoreLib.dll',
      ),
    ).to.equal(true);
    expect(isFrameworkModule('/work/app/build/dotnet/linux-x64/cdbh-dotnet.dll')).to.equal(false);
    expect(isFrameworkModule('C:\\app\\bin\\System.Text.Json.dll')).to.equal(true);
  });
});
