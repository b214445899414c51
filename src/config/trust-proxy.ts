import { isIP } from 'node:net';
import { z } from 'zod';

/** Express's `trust proxy` setting: all hops, none, a hop count, or the addresses and subnets of trusted proxies. */
export type TrustProxy = boolean | number | string[];

/** Names Express (proxy-addr) accepts for well-known ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/**
 * `TRUST_PROXY`, in Express's own terms: `true` trusts every hop (any client can then choose its address
 * with X-Forwarded-For), `false` none, a number that many hops, otherwise a comma-separated list of
 * addresses, subnets (CIDR) and the names `loopback`, `linklocal`, `uniquelocal`. The default, `false`,
 * trusts no hop: X-Forwarded-For is ignored until the operator names their proxies, so a client that
 * reaches the service directly (even from loopback) cannot choose its address and rotate past the
 * per-address throttle.
 */
export const trustProxySchema = z
  .string()
  .trim()
  .transform((value, ctx): TrustProxy => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    const bad = entries.find((entry) => !isAddressOrSubnet(entry));
    if (bad !== undefined) {
      ctx.addIssue({ code: 'custom', message: `'${bad}' is not true, false, a hop count, an address, a subnet, loopback, linklocal or uniquelocal` });
      return z.NEVER;
    }
    return entries;
  })
  .prefault('false');
