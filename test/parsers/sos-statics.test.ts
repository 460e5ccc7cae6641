// The SOS listings that check a static-variable label (dumpdomain, dumpmodule -mt, dumpclass),
// read from one real dump of the lab program's --cache mode (scripts/record-dotnet-dump.sh cache).
import { expect } from 'chai';
import { join } from 'node:path';
import {
  parseDumpClassStatics,
  parseDumpDomainModules,
  parseDumpModuleTypes,
} from '../../src/parsers/sos-statics.js';
import { readTranscriptFile, TRANSCRIPTS_DIR } from './transcripts.js';

const body = (file: string) =>
  readTranscriptFile(join(TRANSCRIPTS_DIR, 'dotnet-dump', file), file).body;

describe('SOS statics listings (dotnet-dump 10, recorded)', () => {
  it('dumpdomain: every module once, with its path', () => {
    const modules = parseDumpDomainModules(body('dumpdomain-cache-linux-net10.txt'));
    expect(modules.length).to.be.greaterThan(5);
    const own = modules.filter((m) => m.path.endsWith('/cdbh-dotnet.dll'));
    expect(own).to.have.length(1);
    expect(own[0]?.address).to.match(/^[0-9a-f]{16}$/);
    expect(modules.some((m) => m.path.endsWith('/System.Private.CoreLib.dll'))).to.equal(true);
    expect(new Set(modules.map((m) => m.address)).size).to.equal(modules.length);
  });

  it('dumpmodule -mt: the types the module defines, not the ones it references', () => {
    const types = parseDumpModuleTypes(body('dumpmodule-mt-cache-linux-net10.txt'));
    const names = types.map((t) => t.name);
    expect(names).to.include.members([
      'CdbHarness.Targets.SessionCache',
      'CdbHarness.Targets.SessionState',
      'CdbHarness.Targets.Program',
    ]);
    expect(names).to.not.include('System.Object');
    expect(types.every((t) => /^[0-9a-f]{16}$/.test(t.methodTable))).to.equal(true);
  });

  it('dumpclass: the class name and its statics with their values', () => {
    const parsed = parseDumpClassStatics(body('dumpclass-session-cache-linux-net10.txt'));
    expect(parsed.className).to.equal('CdbHarness.Targets.SessionCache');
    expect(parsed.statics.map((s) => s.name)).to.deep.equal(['Ballast', 'Entries']);
    expect(parsed.statics[1]).to.include({ type: '...te, cdbh-dotnet]]' });
    expect(parsed.statics[1]?.value).to.match(/^0000[0-9a-f]{12}$/);
    expect(parseDumpClassStatics('').statics).to.deep.equal([]);
  });
});
