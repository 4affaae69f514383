import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { LoadFigures, LoadOptions, TimingFigures } from './measure';

export interface ListScenario {
  name: string;
  load: LoadOptions;
  libraryRequest: string;
  check: { rows: number; total: number; identical: boolean; difference: string | null };
  library: LoadFigures;
  baseline: LoadFigures;
}

export interface Results {
  date: string;
  machine: string;
  sqlDataset: string;
  mongoDataset: string;
  postgres: string;
  mongoKind: string;
  lists: ListScenario[];
  bulk: { library: TimingFigures; baseline: TimingFigures } | null;
  seconds: number;
}

const START = '<!-- bench:results:start (written by bench/run.ts) -->';
const END = '<!-- bench:results:end -->';

const fixed = (n: number, digits = 1): string => n.toFixed(digits);
const ratio = (library: number, baseline: number): string => (baseline > 0 ? `${(library / baseline).toFixed(2)}x` : 'n/a');

/** The figures as a markdown table (also what the console shows). */
export function resultTable(r: Results): string {
  const lines = [
    '| scenario | side | req/s | p50 ms | p99 ms | failures | req/s vs baseline | p50 vs baseline |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const s of r.lists) {
    for (const [side, f] of [['library', s.library], ['baseline', s.baseline]] as const) {
      lines.push(
        `| ${s.name} | ${side} | ${fixed(f.requestsPerSecond)} | ${f.p50} | ${f.p99} | ${f.failures} | ` +
          `${side === 'library' ? ratio(f.requestsPerSecond, s.baseline.requestsPerSecond) : '1.00x'} | ` +
          `${side === 'library' ? ratio(f.p50, s.baseline.p50) : '1.00x'} |`,
      );
    }
  }
  if (r.bulk) {
    lines.push('', '| bulk insert, 1,000 products per request (PostgreSQL) | median ms | min ms | all samples ms | vs baseline (median) |', '| --- | ---: | ---: | --- | ---: |');
    for (const [side, t] of [['library: POST /api/v1/products', r.bulk.library], ['baseline: one multi-row INSERT (pg)', r.bulk.baseline]] as const) {
      lines.push(`| ${side} | ${fixed(t.median)} | ${fixed(t.min)} | ${t.samples.map((x) => fixed(x, 0)).join(', ')} | ${ratio(t.median, r.bulk.baseline.median)} |`);
    }
  }
  return lines.join('\n');
}

function generatedSection(r: Results, table: string): string {
  const checks = r.lists.map(
    (s) =>
      `- ${s.name}: same ${s.check.rows} ids in the same order, total ${s.check.total}; whole bodies ` +
      (s.check.identical ? 'identical (key order aside).' : `differ: ${s.check.difference}`),
  );
  return [
    START,
    `- Date: ${r.date}; whole run ${r.seconds} s.`,
    `- Machine: ${r.machine}. Load generator, server child and database share these cores.`,
    ...r.lists.map(
      (s) =>
        `- Load, ${s.name}: autocannon, ${s.load.connections} connections, ${s.load.warmupSeconds} s warm-up (discarded) then ` +
        `${s.load.seconds} s per side, loopback; the next run starts when the server has answered every request.`,
    ),
    `- PostgreSQL: ${r.postgres}; data set: ${r.sqlDataset}.`,
    `- MongoDB: ${r.mongoKind}; data set: ${r.mongoDataset}.`,
    `- Library request: \`${r.lists[0]?.libraryRequest ?? ''}\``,
    ...checks,
    '',
    table,
    END,
  ].join('\n');
}

/** Replaces the generated section of RESULTS.md (notes around it are kept); returns the table. */
export function writeResults(r: Results, path: string): string {
  const table = resultTable(r);
  const section = generatedSection(r, table);
  const current = existsSync(path) ? readFileSync(path, 'utf8') : `# Benchmark results\n\n${START}\n${END}\n`;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next = start >= 0 && end > start ? current.slice(0, start) + section + current.slice(end + END.length) : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
  return table;
}
