import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { currentLocale } from '../../../ui/i18n';
import 'uplot/dist/uPlot.min.css';
import './overview.css';

export interface BarSeries {
  label: string;
  values: number[];
}

/** The series' colours, in order (the legend's swatches: .bo-chart__swatch--N in overview.css, the same values); readable on light and dark surfaces. */
const CHART_COLORS = ['#2f6fdf', '#e07b00', '#1f9d6b', '#a347c9'] as const;

/**
 * Stacked bars per day, drawn by uPlot on a canvas (bundled, nothing loaded from outside). The
 * canvas is hidden from screen readers: every chart sits beside a table of the same numbers.
 * Each bar is drawn as the running sum of the series up to it, tallest first, so the later
 * (shorter) ones cover the lower part of the earlier: one stack per day.
 */


/** `unit`: the values' size (100 for minor units of a two-decimal currency), so the axis reads whole units in short form (1.2K); counts step by whole numbers. */
export function StackedBarChart({ days, series, unit, label }: { days: string[]; series: BarSeries[]; unit: number; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // The axes speak the staff member's language: day and month names, short numbers (1,2 k).
    const compact = new Intl.NumberFormat(currentLocale(), { notation: 'compact', maximumFractionDigits: 1 });
    const dayName = new Intl.DateTimeFormat(currentLocale(), { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const xs = days.map((d) => Date.parse(`${d}T12:00:00Z`) / 1000);
    const cumulative: number[][] = [];
    let running = days.map(() => 0);
    for (const s of series) {
      running = running.map((v, i) => v + (s.values[i] ?? 0));
      cumulative.push(running);
    }
    const order = series.map((_, i) => i).reverse();
    const ink = getComputedStyle(el).color || '#3c4257';
    const bars = uPlot.paths.bars!({ size: [0.7, 40], align: 0 });
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 220,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [
        { stroke: ink, grid: { show: false }, ticks: { stroke: ink }, values: (_u, splits) => splits.map((v) => dayName.format(v * 1000)) },
        {
          stroke: ink,
          size: 56,
          values: (_u, splits) => splits.map((v) => compact.format(v / unit)),
          // Whole units only (no "1.5 sessions"): steps of 1, 2, 5 × 10ⁿ units.
          incrs: Array.from({ length: 16 }, (_, i) => [1, 2, 5].map((m) => m * 10 ** i * unit)).flat(),
          grid: { stroke: 'rgba(127,127,127,0.25)' },
          ticks: { stroke: ink },
        },
      ],
      series: [{}, ...order.map((i) => ({ label: series[i]!.label, fill: CHART_COLORS[i % CHART_COLORS.length], stroke: CHART_COLORS[i % CHART_COLORS.length], paths: bars, points: { show: false } }))],
    };
    const plot = new uPlot(opts, [xs, ...order.map((i) => cumulative[i]!)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series, unit]);
  return (
    <figure className="bo-chart">
      <div ref={box} className="bo-chart__canvas" aria-hidden="true" />
      <figcaption className="bo-chart__legend">
        <span className="bo-visually-hidden">{label}. </span>
        {series.map((s, i) => (
          <span key={s.label} className="bo-chart__key">
            <span className={`bo-chart__swatch bo-chart__swatch--${i}`} aria-hidden="true" />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
