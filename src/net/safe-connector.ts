import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { formatAddress, parseAddress, refusalReason } from './address-policy';
import type { HostAllowlist } from './host-allowlist';

/** Resolves a host name to every address it has (the system resolver, or a fixed table in tests). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Node's own resolution (getaddrinfo: /etc/hosts, then DNS), every address, in the resolver's order. */
export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A connection refused because of where it would have gone; the client turns it into a UpstreamError. */
export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const target = host === address ? formatAddress(address) : `${host} (${formatAddress(address)})`;
    super(`${target} is ${reason}`);
    this.name = 'RefusedAddressError';
  }
}

function wantedFamily(options: LookupOptions): 4 | 6 | undefined {
  const family = options.family as number | string | undefined;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/** A name with any refused address is refused whole: a public address beside a private one is a trick. */
function refuseInternal(hostname: string, addresses: LookupAddress[]): RefusedAddressError | null {
  for (const entry of addresses) {
    const reason = refusalReason(entry.address);
    if (reason) return new RefusedAddressError(hostname, entry.address, reason);
  }
  return null;
}

/**
 * A `lookup` for net.connect/tls.connect. The addresses it hands back are the ones the socket
 * connects to, so an `inspect` here leaves no gap between check and use (DNS rebinding).
 */
function lookupThrough(resolve: Resolver, inspect: (hostname: string, addresses: LookupAddress[]) => Error | null): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refusal = inspect(hostname, addresses);
        if (refusal) return callback(refusal, '', 0);
        const family = wantedFamily(options);
        const usable = addresses.filter((entry) => family === undefined || entry.family === family);
        const first = usable[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        return options.all ? callback(null, usable) : callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/**
 * A `lookup` for node:http requests to a tenant-given host name: it refuses internal addresses as the
 * name resolves, on the addresses the socket then uses. Literal addresses never reach a lookup; check
 * them with `refusalReason` first.
 */
export function refusingLookup(resolve: Resolver = systemResolver): LookupFunction {
  return lookupThrough(resolve, refuseInternal);
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * undici's connector with the address check in it. Node skips `lookup` for a literal address, so a
 * literal (already normalised by the URL parser from 2130706433, 0x7f.1, [::ffff:127.0.0.1]) is
 * checked here before any socket exists; a name is checked by the guarded lookup as it resolves.
 */
export function createSafeConnector({ allowlist, resolve }: { allowlist: HostAllowlist; resolve: Resolver }): buildConnector.connector {
  const guarded = buildConnector({ lookup: lookupThrough(resolve, refuseInternal) });
  const allowed = buildConnector({ lookup: lookupThrough(resolve, () => null) });
  return (options, callback) => {
    const port = Number(options.port) || (DEFAULT_PORTS[options.protocol] ?? 0);
    if (allowlist.allows(options.hostname, port)) return allowed(options, callback);
    if (parseAddress(options.hostname)) {
      const reason = refusalReason(options.hostname);
      if (reason) return callback(new RefusedAddressError(options.hostname, options.hostname, reason), null);
    }
    return guarded(options, callback);
  };
}
