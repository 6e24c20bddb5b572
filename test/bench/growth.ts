// The growth table of `npm run bench -- --sizes A,B,...`: each figure of the bench at every size, its ratio
// to the smallest size's, and what issue 40 allows it: flat (the same per callback and per page whatever
// the history's size: within 1.3x), linear (a whole pass or export: at most the sizes' ratio, with a
// tenth for the machine's noise: 3.3x for 3x the data), or a bound on the figure itself (the export
// against `sqlite3 -csv`, at most 1.0x at every size). The machine's load (1-minute average) is beside
// each figure, as it was when that phase started at that size: compare ratios only between quiet runs.

/** What the growth table reads of one size's bench result (run.ts). */
export interface SizeRun {
  load_average_1m: { by_phase: Record<string, number> };
  data: { collections: number; years: number; database_mb: number; generate_s: number; generate_cpu_s: number };
  export: { collections_csv_s: number; sqlite3_csv_s: number | null; ratio: number | null; cpu_s: number };
  reconciliation: { full_s: number; full_cpu_s: number; again_of_reconciled_s: number; again_cpu_s: number };
  ingestion: { per_second: number; cpu_us_per_callback: number };
  page: { p95_ms: number; cpu_p95_ms: number };
  memory: { peak_rss_mb_during_export: number };
}

type Growth = 'flat' | 'linear' | 'at most';

interface Figure {
  figure: string;
  /** The phase whose load is shown beside it. */
  phase: string;
  grows: Growth;
  /** A rate: a higher figure is better, so its cost ratio is smallest / this. */
  rate?: boolean;
  /** For 'at most': the bound on the figure at every size. */
  bound?: number;
  /** Shown, not judged (a reference figure such as the sqlite3 shell's own time). */
  informative?: boolean;
  get: (r: SizeRun) => number | null;
}

const FIGURES: Figure[] = [
  // One year at every size (a busier merchant) or N/1M years (a longer history: --years-per-million 1).
  {
    figure: 'the history spans (years)',
    phase: 'generate',
    grows: 'linear',
    informative: true,
    get: (r) => r.data.years,
  },
  {
    figure: 'callback ingestion, durable (callbacks/s)',
    phase: 'ingestion',
    grows: 'flat',
    rate: true,
    get: (r) => r.ingestion.per_second,
  },
  {
    figure: 'ingestion, process CPU per callback (µs)',
    phase: 'ingestion',
    grows: 'flat',
    get: (r) => r.ingestion.cpu_us_per_callback,
  },
  { figure: 'page of 100, p95 (ms)', phase: 'page', grows: 'flat', get: (r) => r.page.p95_ms },
  { figure: 'page of 100, CPU p95 (ms)', phase: 'page', grows: 'flat', get: (r) => r.page.cpu_p95_ms },
  { figure: 'full reconciliation (s)', phase: 'reconciliation', grows: 'linear', get: (r) => r.reconciliation.full_s },
  {
    figure: 'full reconciliation, CPU (s)',
    phase: 'reconciliation',
    grows: 'linear',
    get: (r) => r.reconciliation.full_cpu_s,
  },
  {
    figure: 'again, of the reconciled database (s)',
    phase: 'reconciliation',
    grows: 'linear',
    get: (r) => r.reconciliation.again_of_reconciled_s,
  },
  { figure: 'collections CSV export (s)', phase: 'export', grows: 'linear', get: (r) => r.export.collections_csv_s },
  { figure: 'export, CPU (s)', phase: 'export', grows: 'linear', get: (r) => r.export.cpu_s },
  {
    figure: '`sqlite3 -csv` of the same rows (s)',
    phase: 'export',
    grows: 'linear',
    informative: true,
    get: (r) => r.export.sqlite3_csv_s,
  },
  { figure: 'export ÷ `sqlite3 -csv`', phase: 'export', grows: 'at most', bound: 1.0, get: (r) => r.export.ratio },
  {
    figure: 'peak RSS during the export (MB)',
    phase: 'export',
    grows: 'flat',
    get: (r) => r.memory.peak_rss_mb_during_export,
  },
  { figure: 'the desk’s file (MB)', phase: 'end', grows: 'linear', get: (r) => r.data.database_mb },
  {
    figure: 'the desk’s file per collection (bytes)',
    phase: 'end',
    grows: 'flat',
    get: (r) => Math.round((r.data.database_mb * 1048576) / r.data.collections),
  },
  { figure: 'generating the history (s)', phase: 'generate', grows: 'linear', get: (r) => r.data.generate_s },
  {
    figure: 'generating the history, CPU (s)',
    phase: 'generate',
    grows: 'linear',
    get: (r) => r.data.generate_cpu_s,
  },
];

/** How much worse than the smallest size a figure may be, as a cost ratio. */
const FLAT = 1.3;
const LINEAR_NOISE = 1.1;

export interface GrowthRow {
  figure: string;
  grows: Growth;
  values: (number | null)[];
  /** Each size's figure divided by the smallest size's. */
  ratios: (number | null)[];
  /** The load (1-minute average) as the phase started, at each size. */
  loads: (number | null)[];
  /** The cost ratio (a rate inverted) allowed at each size; for 'at most', the bound on the figure. */
  limits: (number | null)[];
  /** Whether every size is within its limit; null when not judged or not measured. */
  pass: boolean | null;
}

export interface GrowthTable {
  sizes: number[];
  rows: GrowthRow[];
}

const r2 = (n: number) => Math.round(n * 100) / 100;

export function growthTable(runs: SizeRun[]): GrowthTable {
  const sizes = runs.map((r) => r.data.collections);
  const rows = FIGURES.map((f): GrowthRow => {
    const values = runs.map((r) => f.get(r));
    const first = values[0] ?? null;
    const ratios = values.map((v) => (v === null || first === null || first === 0 ? null : r2(v / first)));
    const limits = sizes.map((n, i) => {
      if (f.informative) return null;
      if (f.grows === 'at most') return f.bound ?? null;
      if (i === 0) return null;
      return f.grows === 'flat' ? FLAT : r2((n / sizes[0]!) * LINEAR_NOISE);
    });
    const judged = values.map((v, i) => {
      const limit = limits[i];
      if (limit === null || limit === undefined || v === null) return null;
      if (f.grows === 'at most') return v <= limit;
      const ratio = ratios[i];
      if (ratio === null || ratio === undefined) return null;
      return (f.rate ? 1 / ratio : ratio) <= limit;
    });
    const verdicts = judged.filter((x): x is boolean => x !== null);
    return {
      figure: f.figure,
      grows: f.grows,
      values,
      ratios,
      loads: runs.map((r) => r.load_average_1m.by_phase[f.phase] ?? null),
      limits,
      pass: verdicts.length === 0 ? null : verdicts.every(Boolean),
    };
  });
  return { sizes, rows };
}

const fmt = (v: number | null) => (v === null ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: 2 }));

function limitText(row: GrowthRow): string {
  if (row.grows === 'at most') return `≤ ${fmt(row.limits[0] ?? null)} at each size`;
  const last = row.limits[row.limits.length - 1];
  if (last === null || last === undefined) return '(reference)';
  return row.grows === 'flat' ? `flat: within ${fmt(last)}×` : `linear: ≤ ${fmt(last)}×`;
}

/** The table as Markdown, for a person (stderr) and docs/benchmarks.md. */
export function growthMarkdown(t: GrowthTable): string {
  const last = t.sizes.length - 1;
  const head = [
    'figure',
    ...t.sizes.map((n) => `${n.toLocaleString('en-US')} (load)`),
    `${t.sizes[last]!.toLocaleString('en-US')} ÷ ${t.sizes[0]!.toLocaleString('en-US')}`,
    'allowed',
    'verdict',
  ];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const row of t.rows) {
    const cells = [
      row.figure,
      ...row.values.map((v, i) => `${fmt(v)} (${fmt(row.loads[i] ?? null)})`),
      row.ratios[last] === null ? '—' : `${fmt(row.ratios[last] ?? null)}×`,
      limitText(row),
      row.pass === null ? '' : row.pass ? 'met' : '**missed**',
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
