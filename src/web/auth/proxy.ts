// Behind an authenticating proxy (oauth2-proxy and the like): the proxy signs people in and
// passes who they are in a header. That header is believed only on a connection from one of the
// configured proxy addresses (the TCP peer, never X-Forwarded-For, which any client can write);
// from anywhere else the request is refused, with or without the header.
import { BlockList, isIP } from 'node:net';

export interface AddressMatcher {
  matches(address: string): boolean;
}

/** `10.0.0.5`, `10.0.1.0/24`, `::1`, `fd00::/8` → a matcher (node:net's BlockList). */
export function parseAddressList(items: readonly string[]): AddressMatcher {
  const list = new BlockList();
  for (const item of items) {
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) throw new Error(`${JSON.stringify(item)} is not an IP address or CIDR range (such as 10.0.0.5 or 10.0.1.0/24)`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address!, type);
    else {
      const prefix = Number(bits);
      if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`${JSON.stringify(item)}: the prefix length must be 0-${family === 4 ? 32 : 128}`);
      list.addSubnet(address!, prefix, type);
    }
  }
  return {
    matches: (raw) => {
      const address = unmapped(raw);
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) → `127.0.0.1`. */
export function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** The groups header: comma-separated (oauth2-proxy), spaces around names ignored. */
export function headerGroups(value: string | undefined): string[] {
  return (value ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
}

/**
 * The client's address: the TCP peer, unless the peer is a trusted proxy (a load balancer that
 * terminates TLS, the sign-in proxy): then the last address of X-Forwarded-For that is not itself
 * a trusted proxy (each proxy appends the address it was reached from; what comes before the
 * trusted ones is the client's to write and is not believed).
 */
export function forwardedClient(peer: string, forwardedFor: string | undefined, trusted: AddressMatcher | undefined): string {
  if (!trusted || !forwardedFor || !trusted.matches(peer)) return peer;
  const hops = forwardedFor.split(',').map((h) => unmapped(h.trim())).filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return peer;
    if (!trusted.matches(hop)) return hop;
  }
  return hops[0] ?? peer;
}
