// Names taken from a dump (a CodeView record's PDB name, a module's image name, a GUID+age or a
// code id) become a folder and a file name in a symbol cache and the path of a URL on a symbol
// server. A dump is hostile input: a name ending in `\..`, a separator, a drive letter or a NUL
// would let it choose where a download lands and which path a server is asked for. Every such
// name is reduced here to one safe path segment, or refused with the reason (the record says it).
// Characters and device names Windows refuses in a file name:
// https://learn.microsoft.com/windows/win32/fileio/naming-a-file

export type SafeName = { ok: true; name: string } | { ok: false; reason: string };

/** Longest segment kept, in UTF-8 bytes: ext4 and NTFS allow 255, a `.part` suffix needs room. */
export const MAX_SEGMENT_BYTES = 200;
/** Longest id: a GUID (32 hex) + age (8 hex), an ELF build id (40 hex) + 0, with room to spare. */
const MAX_ID_LENGTH = 72;
// Sample: "CON", "nul.pdb", "COM1.dll" (device names, whatever the extension)
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
// Sample refused: "a<b.pdb", "a|b.pdb", "a?.pdb", "a*.pdb", 'a".pdb', "a:b.pdb"
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f<>:"|?*]/;
// Sample: "66788DE2EE469EF54C4C44205044422E1" (GUID + age), "6B06303D3C000" (time stamp + size)
const ID = /^[0-9A-Fa-f]+$/;

/**
 * A file name from a dump reduced to its last path component (symsrv keys a file by its name,
 * not its path), or the reason it cannot be used. `what` names the field for the reason.
 */
export function safeFileName(raw: string, what: string): SafeName {
  const refuse = (why: string): SafeName => ({
    ok: false,
    reason: `${what} ${JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw)} refused: ${why}`,
  });
  if (raw.includes('\0')) return refuse('it holds a NUL character');
  const cut = Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\'));
  let name = cut === -1 ? raw : raw.slice(cut + 1);
  // Sample: "C:symcrash.pdb" (a drive-relative path): the drive is not part of the name.
  const drive = /^[A-Za-z]:/.exec(name);
  if (drive !== null) name = name.slice(2);
  if (name.length === 0) return refuse('no file name in it');
  if (name === '.' || name === '..') return refuse(`its file name is "${name}"`);
  // A two-tier store files a name under its first two characters: `..x` would be a `..` folder.
  if (name.startsWith('..')) return refuse('it starts with ".."');
  if (FORBIDDEN.test(name)) return refuse('it holds a control character or one of <>:"|?*');
  if (/[ .]$/.test(name)) return refuse('it ends in a dot or a space (Windows drops them)');
  if (RESERVED.test(name)) return refuse('it is a Windows device name');
  if (Buffer.byteLength(name, 'utf8') > MAX_SEGMENT_BYTES) {
    return refuse(`longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return { ok: true, name };
}

/** A GUID+age or code id from a dump: hex digits only, bounded, or the reason it is refused. */
export function safeId(raw: string, what: string): SafeName {
  if (raw.length === 0 || raw.length > MAX_ID_LENGTH || !ID.test(raw)) {
    const shown = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
    return {
      ok: false,
      reason: `${what} ${shown} refused: not 1 to ${MAX_ID_LENGTH} hex digits`,
    };
  }
  return { ok: true, name: raw };
}

/** A store key whose name and id are both safe segments, or the first reason one is not. */
export function safeKey(
  key: { name: string; id: string },
  what: { name: string; id: string } = { name: 'name', id: 'id' },
): { ok: true; key: { name: string; id: string } } | { ok: false; reason: string } {
  const name = safeFileName(key.name, what.name);
  if (!name.ok) return name;
  const id = safeId(key.id, what.id);
  if (!id.ok) return id;
  return { ok: true, key: { name: name.name, id: id.name } };
}

/** A `/`-separated relative store path as a URL path: each segment percent-encoded. */
export function urlPath(relative: string): string {
  return relative
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}
