import type { LookupFunction } from 'node:net';
import { formatAddress, parseAddress, refusalReason } from './address-policy';
import type { HostAllowlist } from './host-allowlist';
import { refusingLookup, systemResolver, type Resolver } from './safe-connector';

/**
 * The SSRF rules for a base URL a tenant gives (a custom model's server), the same as for URLs the
 * plugins fetch: only public addresses, unless the operator allowlists the host (`SSRF_ALLOWED_HOSTS`).
 * Checked twice: when the URL is saved (a clear 400), and on every connection (DNS may change since).
 */

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** How a call to an endpoint connects: refused, or through `lookup` (absent: the host needs no check). */
export type EndpointAccess = { refused: string } | { lookup?: LookupFunction };

function portOf(url: URL): number {
  return Number(url.port) || (DEFAULT_PORTS[url.protocol] ?? 0);
}

/** Why the URL's form is refused (not http/https, credentials in it), or null. */
export function urlFormProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (give the key as api_key)';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  return null;
}

/** The per-call rule for a URL already saved: literal addresses are judged now, names as they resolve. */
export function endpointAccess(text: string, allowlist: HostAllowlist): EndpointAccess {
  const url = new URL(text);
  if (allowlist.allows(url.hostname, portOf(url))) return {};
  if (parseAddress(url.hostname)) {
    const reason = refusalReason(url.hostname);
    return reason ? { refused: `${formatAddress(url.hostname)} is ${reason}` } : {};
  }
  return { lookup: refusingLookup() };
}

/**
 * Why saving this URL is refused, or null: its form, then every address its host resolves to. A host
 * that does not resolve is refused too (a typo is better caught now than at the first request).
 */
export async function endpointProblem(
  text: string,
  { allowlist, resolve = systemResolver }: { allowlist: HostAllowlist; resolve?: Resolver },
): Promise<string | null> {
  const form = urlFormProblem(text);
  if (form) return form;
  const url = new URL(text);
  const hint = 'only public addresses are allowed (an operator can allow a named internal host with SSRF_ALLOWED_HOSTS)';
  if (allowlist.allows(url.hostname, portOf(url))) return null;
  if (parseAddress(url.hostname)) {
    const reason = refusalReason(url.hostname);
    return reason ? `${formatAddress(url.hostname)} is ${reason}; ${hint}` : null;
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    return `host '${url.hostname}' does not resolve`;
  }
  for (const { address } of addresses) {
    const reason = refusalReason(address);
    if (reason) return `${url.hostname} (${formatAddress(address)}) is ${reason}; ${hint}`;
  }
  return addresses.length === 0 ? `host '${url.hostname}' has no address` : null;
}
