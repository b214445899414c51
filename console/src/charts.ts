import type { ChartConfiguration } from 'chart.js';
import type { LogSummaryBucket } from '../../src/schemas/log-summary';

/** Every day from `from` up to but not including `until` (`YYYY-MM-DD`, UTC): the x axis, gaps included. */
export function daysBetween(from: string, until: string): string[] {
  const days: string[] = [];
  for (let day = new Date(`${from}T00:00:00Z`); day < new Date(`${until}T00:00:00Z`); day.setUTCDate(day.getUTCDate() + 1)) {
    days.push(day.toISOString().slice(0, 10));
  }
  return days;
}

/** A fixed palette, so a series keeps its colour between renders. */
const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const colour = (index: number) => COLOURS[index % COLOURS.length];

const money = { ticks: { callback: (value: string | number) => `$${Number(value)}` } };

/** Cost and savings per day, as two lines. */
export function costAndSavingsChart(days: string[], buckets: LogSummaryBucket[]): ChartConfiguration {
  const byDay = new Map(buckets.map((bucket) => [bucket.day, bucket]));
  return {
    type: 'line',
    data: {
      labels: days,
      datasets: [
        { label: 'Cost (USD)', data: days.map((day) => byDay.get(day)?.cost ?? 0), borderColor: colour(0), backgroundColor: colour(0) },
        { label: 'Savings (USD)', data: days.map((day) => byDay.get(day)?.savings ?? 0), borderColor: colour(2), backgroundColor: colour(2) },
      ],
    },
    options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true, ...money } } },
  };
}

/** One stacked bar per day, a segment per series (`seriesOf` names a bucket's model or Space). */
export function stackedCostChart(days: string[], buckets: LogSummaryBucket[], seriesOf: (bucket: LogSummaryBucket) => string): ChartConfiguration {
  const names = [...new Set(buckets.map(seriesOf))].sort();
  const cost = new Map(buckets.map((bucket) => [`${bucket.day}|${seriesOf(bucket)}`, bucket.cost]));
  return {
    type: 'bar',
    data: {
      labels: days,
      datasets: names.map((name, index) => ({ label: name, data: days.map((day) => cost.get(`${day}|${name}`) ?? 0), backgroundColor: colour(index) })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ...money } },
    },
  };
}
