import type uPlot from 'uplot';
import type { ChartColumns } from '../chart-data.js';

/*
 * The one place that calls uPlot, loaded with a dynamic import() so that neither uPlot nor this
 * module weighs on the cockpit's first load. Tests replace this module (jsdom has no canvas) and
 * test the data preparation in chart-data.ts instead.
 *
 * Columns go to uPlot as they come (typed arrays and the contract's arrays): no per-point object
 * is ever built. uPlot draws on a canvas and sizes its DOM through element.style from script,
 * which the cockpit's `style-src 'self'` allows; its stylesheet is bundled in alignment.css.
 *
 * Import nothing here but uPlot and types: a module shared with the main bundle would make the
 * bundler split shared chunks that run before lib/zod-config.ts, and zod's `new Function` probe
 * would then be reported as a CSP violation on every load.
 */

export type ChartColor = 'accent' | 'ok' | 'warn' | 'bad' | 'muted';

export interface ChartLine {
  label: string;
  color: ChartColor;
  /** A line through the points, or markers only (where the column has a value). */
  kind: 'line' | 'markers';
  dash?: boolean;
}

export interface ChartSpec {
  series: readonly ChartLine[];
  y: { min: number; max: number; percent?: boolean };
  /** Horizontal rules drawn across the plot (the drift threshold). */
  rules?: readonly { value: number; color: ChartColor }[];
  height: number;
}

export interface ChartHandle {
  setData(columns: ChartColumns): void;
  destroy(): void;
}

const FALLBACK: Record<ChartColor | 'text' | 'border', string> = {
  accent: '#2456c7',
  ok: '#1a7f37',
  warn: '#9a6700',
  bad: '#c4281c',
  muted: '#5b6470',
  text: '#1b1f24',
  border: '#d9dde3',
};

/** The cockpit's colour variables as the canvas needs them (a canvas cannot resolve `var(--x)`). */
function palette(host: HTMLElement): (name: keyof typeof FALLBACK) => string {
  const css = getComputedStyle(host);
  return (name) => css.getPropertyValue(`--${name}`).trim() || FALLBACK[name];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** uPlot with the cockpit's chart conventions; `onDrawn` is told how many points each draw covered. */
export async function mountChart(host: HTMLElement, spec: ChartSpec, columns: ChartColumns, onDrawn: (points: number) => void): Promise<ChartHandle> {
  const { default: UPlot } = await import('uplot');
  const color = palette(host);
  const width = () => Math.max(240, host.clientWidth || 640);
  const percent = spec.y.percent === true;

  const drawRules = (u: uPlot) => {
    const ctx = u.ctx;
    const ratio = window.devicePixelRatio || 1;
    for (const rule of spec.rules ?? []) {
      const y = Math.round(u.valToPos(rule.value, 'y', true));
      ctx.save();
      ctx.strokeStyle = color(rule.color);
      ctx.lineWidth = ratio;
      ctx.setLineDash([6 * ratio, 4 * ratio]);
      ctx.beginPath();
      ctx.moveTo(u.bbox.left, y);
      ctx.lineTo(u.bbox.left + u.bbox.width, y);
      ctx.stroke();
      ctx.restore();
    }
  };

  const options: uPlot.Options = {
    width: width(),
    height: spec.height,
    ms: 1,
    legend: { show: false },
    cursor: { points: { show: false } },
    scales: { x: { time: true }, y: { range: [spec.y.min, spec.y.max] } },
    axes: [
      { stroke: color('muted'), grid: { stroke: color('border'), width: 1 }, ticks: { stroke: color('border'), width: 1 } },
      {
        stroke: color('muted'),
        grid: { stroke: color('border'), width: 1 },
        ticks: { stroke: color('border'), width: 1 },
        size: 48,
        values: (_u, splits) => splits.map((v) => (percent ? `${Math.round(v * 100)}%` : v.toFixed(1))),
      },
    ],
    series: [
      {
        value: (_u, v) => {
          if (v == null) return '';
          const d = new Date(v);
          return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
        },
      },
      ...spec.series.map((line): uPlot.Series =>
        line.kind === 'markers'
          ? { label: line.label, stroke: color(line.color), width: 0, paths: () => null, points: { show: true, size: 9, width: 1, stroke: color(line.color), fill: color(line.color) } }
          : { label: line.label, stroke: color(line.color), width: 1.5, points: { show: false }, ...(line.dash ? { dash: [4, 3] } : {}) },
      ),
    ],
    hooks: {
      draw: [
        (u) => {
          drawRules(u);
          onDrawn(u.data[0].length);
        },
      ],
    },
  };

  const chart = new UPlot(options, columns as unknown as uPlot.AlignedData, host);
  // The observer also fires once when it starts: only a real change of width redraws (100,000 points are not drawn twice).
  let drawnWidth = options.width;
  const resize =
    typeof ResizeObserver === 'function'
      ? new ResizeObserver(() => {
          const next = width();
          if (next === drawnWidth) return;
          drawnWidth = next;
          chart.setSize({ width: next, height: spec.height });
        })
      : null;
  resize?.observe(host);
  return {
    setData: (next) => chart.setData(next as unknown as uPlot.AlignedData),
    destroy: () => {
      resize?.disconnect();
      chart.destroy();
    },
  };
}
