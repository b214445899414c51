/** USD with enough digits for sub-cent request costs. */
export function usd(dollars: number): string {
  if (dollars === 0) return '$0';
  const digits = Math.abs(dollars) >= 1 ? 2 : Math.abs(dollars) >= 0.01 ? 4 : 6;
  return `$${dollars.toFixed(digits)}`;
}

export function dateTime(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function epochSeconds(seconds: number | null): string {
  return seconds === null ? '—' : new Date(seconds * 1000).toLocaleString();
}

/** `YYYY-MM-DD` of a date in UTC, the form the API's date filters take. */
export const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

/** A log's latency: null means nothing was measured (the API never shows a negative one). */
export function milliseconds(ms: number | null): string {
  return ms === null || ms < 0 ? '—' : `${Math.round(ms)} ms`;
}
