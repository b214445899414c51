import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses an untrusted URL may reach. ipaddr.js (the range tables Express's proxy-addr
 * also relies on) names the special ranges; everything but plain public unicast is refused:
 * loopback, RFC1918, CGNAT (100.64/10), link-local (with the cloud metadata address
 * 169.254.169.254), unique-local (fc00::/7, with AWS's fd00:ec2::254), unspecified, broadcast,
 * multicast, documentation, benchmarking and reserved blocks. IPv6 must also sit in 2000::/3, the
 * only block allocated for global unicast, and the transition forms that embed an IPv4 address
 * (6to4, Teredo, NAT64) are refused because the address they lead to cannot be checked here.
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
 */

/** The well-known cloud metadata endpoints, named in the refusal so an operator sees what was tried. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
};

/** Parses an address written any way Node or a URL may hand it (brackets, IPv4 as decimal/octal/hex). */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const withoutZone = bare.replace(/%.*$/, '');
  if (ipaddr.IPv6.isValid(withoutZone)) return ipaddr.IPv6.parse(withoutZone);
  // `isValid` accepts the inet_aton forms (2130706433, 0x7f.1, 0177.0.0.1) that a resolver would also accept.
  if (ipaddr.IPv4.isValid(withoutZone)) return ipaddr.IPv4.parse(withoutZone);
  return null;
}

/** Why connecting to this address is refused, or null when it is a public unicast address. */
export function refusalReason(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return 'not an IP address';
  const ip = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  if (METADATA_ADDRESSES.has(ip.toString())) return 'a cloud metadata address';
  const range = ip.range();
  if (range !== 'unicast') return RANGE_WORDS[range] ?? `a reserved address (${range})`;
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return 'an IPv6 address outside global unicast (2000::/3)';
  return null;
}

/** The address in its usual written form (`127.0.0.1`, `::1`), for messages. */
export function formatAddress(address: string): string {
  return parseAddress(address)?.toString() ?? address;
}
