// Which redirects a symbol download follows (`--symbol-redirects`). A symbol server answers with
// a redirect more often than not: Microsoft's public server sends every file to a storage CDN on
// another host, over https (`https://msdl.microsoft.com/download/symbols/asycfilt.pdb/…` →
// `https://vsblobprodscussu5shard2.blob.core.windows.net/b-…/….blob?sv=…`, as quoted in
// https://github.com/MicrosoftDocs/windows-driver-docs/issues/1966). What must not happen is a
// server on the internet sending the harness to a plain-http address, or into the machine's own
// network (localhost, 10.x, 192.168.x, the cloud metadata address 169.254.169.254): a hostile
// or compromised server could then make it fetch from places only it can reach.
//
//   same-host  only to the same host name (same scheme, or http → https on that host)
//   https      (default) same-host, or https to a public host; from a loopback or private server
//              also to loopback or private hosts (a local store redirecting to itself)
//   any        every redirect, as before (fetch's own `redirect: 'follow'`)
export const REDIRECT_POLICIES = ['same-host', 'https', 'any'] as const;
export type RedirectPolicy = (typeof REDIRECT_POLICIES)[number];
export const DEFAULT_REDIRECT_POLICY: RedirectPolicy = 'https';
/** Hops followed before a download is refused (fetch follows 20; a store needs one or two). */
export const MAX_REDIRECTS = 5;

/** Why `from` → `to` is refused under `policy`, or null when it may be followed. */
export function redirectRefusal(from: URL, to: URL, policy: RedirectPolicy): string | null {
  if (to.protocol !== 'http:' && to.protocol !== 'https:') {
    return `${to.protocol} is not http or https`;
  }
  if (policy === 'any') return null;
  const sameHost = from.hostname.toLowerCase() === to.hostname.toLowerCase();
  const sameSchemeOrUpgrade = to.protocol === from.protocol || to.protocol === 'https:';
  if (sameHost && sameSchemeOrUpgrade) return null;
  if (policy === 'same-host') {
    return sameHost ? 'https downgraded to http' : 'another host';
  }
  if (to.protocol !== 'https:') return 'another host over plain http';
  if (isInternal(to.hostname) && !isInternal(from.hostname)) {
    return 'a public server sending to a loopback, private or link-local address';
  }
  return null;
}

/**
 * Host names that reach this machine or its network: `localhost` names, and literal loopback,
 * private (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10), unspecified and CGNAT
 * (100.64/10) addresses. A public name that resolves to such an address is not caught here
 * (docs/symbols.md says so): only what the URL itself says.
 */
export function isInternal(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  // URL() has already written every IPv4 spelling (`0x7f.1`, `2130706433`) as dotted decimal:
  // `127.0.0.1`.
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)) return internalV4(host);
  if (host.includes(':')) {
    // `::ffff:10.0.0.1`: an IPv4 address in IPv6 clothing; URL() writes it in hex, `::ffff:a00:1`.
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (hexMapped?.[1] !== undefined && hexMapped[2] !== undefined) {
      const high = Number.parseInt(hexMapped[1], 16);
      const low = Number.parseInt(hexMapped[2], 16);
      return internalV4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    if (host === '::1' || host === '::') return true;
    const first = Number.parseInt(host.split(':')[0] || '0', 16);
    return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
  }
  return false;
}

function internalV4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b < 128) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b < 32) ||
    (a === 192 && b === 168)
  );
}
