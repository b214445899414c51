/**
 * The preference tokens of `Prefer` headers (RFC 7240): `respond-async, wait=10` → `respond-async`,
 * `wait`. Several headers arrive joined by commas; tokens are case-insensitive; values and parameters
 * are not needed here.
 */
export function preferenceTokens(header: string | undefined): Set<string> {
  if (!header) return new Set();
  return new Set(
    header
      .split(',')
      .map((preference) => (preference.split(/[=;]/)[0] ?? '').trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}
