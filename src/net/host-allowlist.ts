import { parseAddress } from './address-policy';

/** One `SSRF_ALLOWED_HOSTS` entry: a host name or address, and a port (undefined: any port). */
interface AllowedHost {
  host: string;
  port: number | undefined;
}

/** Host names compare case-insensitively, addresses by value (`[::1]` and `::1`, `127.1` and `127.0.0.1`). */
function normaliseHost(host: string): string {
  const address = parseAddress(host);
  return address ? address.toString() : host.toLowerCase().replace(/\.$/, '');
}

function parseEntry(entry: string): AllowedHost {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: normaliseHost(bracketed[1] as string), port: bracketed[2] ? Number(bracketed[2]) : undefined };
  // More than one colon and no brackets: a bare IPv6 address, which cannot carry a port.
  if ((entry.match(/:/g) ?? []).length > 1) return { host: normaliseHost(entry), port: undefined };
  const [host, port] = entry.split(':');
  return { host: normaliseHost(host as string), port: port ? Number(port) : undefined };
}

/**
 * The operator's explicit exceptions to the SSRF rules (`SSRF_ALLOWED_HOSTS`): named internal hosts
 * an untrusted URL may reach (an intranet wiki, the test suite's simulators). It is matched against
 * the host as the URL names it, before any resolution, so an attacker's DNS cannot borrow it.
 */
export class HostAllowlist {
  private readonly entries: AllowedHost[];

  constructor(entries: readonly string[]) {
    this.entries = entries.map(parseEntry);
  }

  /** `host` as in a URL (brackets allowed); `port` the URL's port or its scheme's default. */
  allows(host: string, port: number): boolean {
    if (this.entries.length === 0) return false;
    const wanted = normaliseHost(host.startsWith('[') ? host.slice(1, -1) : host);
    return this.entries.some((entry) => entry.host === wanted && (entry.port === undefined || entry.port === port));
  }
}
