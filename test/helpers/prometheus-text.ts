/**
 * A strict reader of the Prometheus text exposition format (0.0.4), as a scraper reads it: every sample
 * belongs to a family declared by `# TYPE` (histograms through their _bucket/_sum/_count series), names
 * and label names are valid, label values are properly quoted and escaped, values are numbers. Throws
 * on the first line that breaks a rule, naming it.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: string;
  help: string;
}

export interface Scrape {
  families: Map<string, Family>;
  samples: Sample[];
  /** Sum of the samples of `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
  /** Every distinct value of one label across the samples of `name`. */
  labelValues(name: string, label: string): string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];
const SUMMARY_SUFFIXES = ['_sum', '_count'];

/**
 * Prometheus reads values with Go's ParseFloat, which takes `NaN` and `Inf` in any case; prom-client writes
 * `Nan` for a summary with no samples yet (the event-loop lag right after start).
 */
function parseValue(text: string, line: string): number {
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a number in: ${line}`);
  return value;
}

/** `a="x",b="y\"z"` → labels, honouring the format's escapes (\\, \", \n). */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = /^([^=\s]+)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest);
    if (!match) throw new Error(`malformed labels in: ${line}`);
    const [whole, name = '', raw = '', comma] = match;
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name} in: ${line}`);
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    labels[name] = raw.replace(/\\(["\\n])/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(whole.length);
    if (comma === '' && rest.length > 0) throw new Error(`malformed labels in: ${line}`);
  }
  return labels;
}

function familyOf(name: string, families: Map<string, Family>): string | null {
  if (families.has(name)) return name;
  for (const [family, { type }] of families) {
    const suffixes = type === 'histogram' ? HISTOGRAM_SUFFIXES : type === 'summary' ? SUMMARY_SUFFIXES : [];
    if (suffixes.some((suffix) => name === family + suffix)) return family;
  }
  return null;
}

export function parsePrometheusText(text: string): Scrape {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!meta) continue;
      const [, kind, name = '', rest = ''] = meta;
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      const family = families.get(name) ?? { type: 'untyped', help: '' };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type in: ${line}`);
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (!sample) throw new Error(`malformed sample: ${line}`);
    const [, name = '', labelText = '', valueText = ''] = sample;
    if (familyOf(name, families) === null) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({ name, labels: parseLabels(labelText, line), value: parseValue(valueText, line) });
  }
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  return {
    families,
    samples,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, s) => sum + s.value, 0),
    labelValues: (name, label) => [
      ...new Set(
        samples
          .filter((s) => s.name === name)
          .map((s) => s.labels[label])
          .filter((v): v is string => v !== undefined),
      ),
    ],
  };
}
