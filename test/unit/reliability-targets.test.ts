import type { Row } from '../../tools/bench/reliability/row';
import { judge } from '../../tools/bench/reliability/targets';

const row = (fault: string, fields: Partial<Row> = {}): Row => ({
  fault,
  sent: 10,
  answered: 10,
  ok: 10,
  fiveXx: 0,
  lostLogs: 0,
  callsPerRequest: 1,
  p50Ms: 1,
  p99Ms: 2,
  other: {},
  notes: [],
  ...fields,
});

/** The verdict of the target of `fault` whose rule starts with `rule`. */
const verdict = (rows: Row[], [fault, rule]: [string, string], { failed = [], short = false }: { failed?: string[]; short?: boolean } = {}) =>
  judge(rows, failed, { short }).find((v) => v.target.fault === fault && v.target.rule.startsWith(rule));

describe('fault suite targets', () => {
  it('reads the figure from the row and compares it with the limit', () => {
    expect(verdict([row('dead primary', { callsPerRequest: 4.02 })], ['dead primary', 'upstream calls/request'])).toMatchObject({ measured: 4.02, met: false });
    expect(verdict([row('dead primary', { callsPerRequest: 1.1 })], ['dead primary', 'upstream calls/request'])).toMatchObject({ measured: 1.1, met: true });
    expect(verdict([row('fuzz', { fiveXx: 3 })], ['fuzz', '5xx'])).toMatchObject({ measured: 3, met: false });
    expect(verdict([row('500', { ok: 9 })], ['500', 'every request answered 200'])).toMatchObject({ measured: 1, met: false });
  });

  it('reads row-specific figures by name', () => {
    const privacy = row('privacy switch', {
      other: { 'stored in full after the switch': 12, 'non-GDPR calls after the switch': 0, 'Redis keys with level-3 text': 0 },
    });
    expect(verdict([privacy], ['privacy switch', 'rows stored in full'])).toMatchObject({ measured: 12, met: false });
    expect(verdict([privacy], ['privacy switch', 'non-GDPR calls'])).toMatchObject({ measured: 0, met: true });
    const kill = row('worker kill -9', { other: { 'max wait after kill s': 31.5, 'duplicate upstream answers': 0 } });
    expect(verdict([kill], ['worker kill -9', 'held jobs answered'])).toMatchObject({ measured: 31.5, met: false });
  });

  it('a row that sent nothing, or whose fault hit nothing, misses a target instead of meeting all of them', () => {
    expect(verdict([row('hang', { sent: 0, answered: 0, ok: 0 })], ['hang', 'requests sent'])).toMatchObject({ measured: 0, met: false });
    expect(verdict([row('hang')], ['hang', 'requests sent'])).toMatchObject({ measured: 10, met: true });
    const idleKill = row('worker kill -9', { other: { 'jobs held by the killed worker': 0 } });
    expect(verdict([idleKill], ['worker kill -9', 'jobs held'])).toMatchObject({ measured: 0, met: false });
    expect(verdict([row('API kill -9', { other: { 'in flight at the killed API': 0 } })], ['API kill -9', 'streams in flight'])).toMatchObject({ met: false });
    expect(verdict([row('privacy switch', { other: { 'sent after the switch': 0 } })], ['privacy switch', 'requests sent after'])).toMatchObject({
      met: false,
    });
    expect(verdict([row('fuzz', { other: { 'accepted completions': 0 } })], ['fuzz', 'completions accepted'])).toMatchObject({ met: false });
  });

  it('the short run holds a target to its own limit where one is given, and the full run to the goal', () => {
    const longWord = [row('long word', { other: { 'loaded p99 / idle p99': 2.4 } })];
    expect(verdict(longWord, ['long word', 'ordinary p99'])).toMatchObject({ measured: 2.4, met: false });
    expect(verdict(longWord, ['long word', 'ordinary p99'], { short: true })).toMatchObject({ measured: 2.4, met: true });
    expect(verdict([row('long word', { other: { 'loaded p99 / idle p99': 5 } })], ['long word', 'ordinary p99'], { short: true })).toMatchObject({
      met: false,
    });
    expect(verdict([row('fuzz', { fiveXx: 1 })], ['fuzz', '5xx'], { short: true })).toMatchObject({ met: false });
  });

  it('a figure the row did not measure is not judged against; a row that failed to run misses its targets', () => {
    expect(verdict([row('fuzz', { lostLogs: null })], ['fuzz', 'lost logs'])).toMatchObject({ measured: null, met: true });
    expect(verdict([], ['hang', 'every request answered'], { failed: ['hang'] })).toMatchObject({ measured: null, met: false });
    expect(judge([], [], { short: false })).toEqual([]);
  });
});
