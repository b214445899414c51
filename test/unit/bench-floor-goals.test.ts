import { floorGoals } from '../../tools/bench/floor-goals';
import type { LoadResult } from '../../tools/bench/load';
import type { Cell, Mode, Path } from '../../tools/bench/report';
import { slope } from '../../tools/bench/soak';
import { distribution } from '../../tools/bench/stats';

const result = ({ rps, p50, ttft }: { rps: number; p50: number; ttft?: number }): LoadResult => ({
  requests: rps * 10,
  errors: 0,
  errorSamples: [],
  wallMs: 10_000,
  rps,
  latency: distribution([p50]),
  ttft: ttft === undefined ? null : distribution([ttft]),
  perSecond: [],
});

const cell = ([path, mode, concurrency]: [Path, Mode, number], figures: { rps: number; p50: number; ttft?: number; cpuMs?: Record<string, number> }): Cell => ({
  path,
  mode,
  concurrency,
  result: result(figures),
  cpuMs: figures.cpuMs ?? {},
});

const processes = { switchyard: ['switchyard'], 'express-floor': ['express floor api', 'express floor worker'] };

describe('issue 20 goals against the Express floor', () => {
  const cells = [
    cell(['express-floor', 'json', 64], { rps: 100, p50: 50, cpuMs: { 'express floor api': 300, 'express floor worker': 300, redis: 200, postgres: 200 } }),
    cell(['switchyard', 'json', 64], { rps: 80, p50: 60, cpuMs: { switchyard: 1000, redis: 100, postgres: 100 } }),
    cell(['express-floor', 'stream', 64], { rps: 100, p50: 50, ttft: 40, cpuMs: { 'express floor api': 500, 'express floor worker': 500 } }),
    cell(['switchyard', 'stream', 64], { rps: 70, p50: 60, ttft: 45, cpuMs: { switchyard: 1500 } }),
    cell(['express-floor', 'json', 1], { rps: 10, p50: 4 }),
    cell(['switchyard', 'json', 1], { rps: 9, p50: 4.8 }),
    cell(['express-floor', 'stream', 1], { rps: 10, p50: 4, ttft: 3 }),
    cell(['switchyard', 'stream', 1], { rps: 9, p50: 5, ttft: 4.5 }),
  ];
  const goals = floorGoals(cells, processes);

  it('compares completions/s as a ratio at 64 clients', () => {
    expect(goals.filter((g) => g.goal.includes('completions/s')).map((g) => [g.measured, g.met])).toEqual([
      [0.8, true],
      [0.7, false],
    ]);
  });

  it('compares p50 and TTFT at one client as a difference in ms', () => {
    const latency = goals.filter((g) => g.unit === 'ms');
    expect(latency.map((g) => [g.goal.split(',')[0], g.measured, g.met])).toEqual([
      ['json', 0.8, true],
      ['stream', 1.5, false],
    ]);
  });

  it('adds Redis and PostgreSQL to each path own processes for CPU per completion', () => {
    const cpu = goals.filter((g) => g.goal.includes('CPU'));
    // JSON: Switchyard (1000 + 100 + 100) / 800 = 1.5 ms; the Express floor (300 + 300 + 200 + 200) / 1000 = 1 ms.
    // Stream: Switchyard 1500 / 700 = 2.143 ms; the Express floor 1000 / 1000 = 1 ms.
    expect(cpu.map((g) => [g.switchyard, g.expressFloor, g.measured, g.met])).toEqual([
      [1.5, 1, 1.5, false],
      [2.143, 1, 2.14, false],
    ]);
  });

  it('leaves out goals whose cells were not measured', () => {
    expect(
      floorGoals(
        cells.filter((c) => c.concurrency === 64),
        processes,
      ).some((g) => g.unit === 'ms'),
    ).toBe(false);
  });
});

describe('soak growth', () => {
  it('fits a least-squares slope', () => {
    expect(
      slope([
        [0, 100],
        [1, 101],
        [2, 102],
      ]),
    ).toBeCloseTo(1);
    expect(
      slope([
        [0, 100],
        [1, 100.5],
        [2, 100],
      ]),
    ).toBeCloseTo(0);
    expect(slope([[1, 100]])).toBeNull();
  });
});
