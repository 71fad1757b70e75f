// The server's stepsmith/coverage answer as the Test Coverage API wants it: per statement line
// how many fixtures ran it and, on branch lines, each way out and how many fixtures took it.
// Pure (no `vscode` import): testing.ts turns it into StatementCoverage / BranchCoverage.

import type { CoverageArc, CoverageInfo } from './protocol';

export interface BranchModel { hits: number; label: string }
export interface StatementModel { line: number; hits: number; branches: BranchModel[] }

function arcKey(a: CoverageArc): string {
  return `${a[0]}:${a[1]}`;
}

function dest(a: CoverageArc): string {
  return a[1] === 'exit' ? '→ exit' : `→ line ${a[1] + 1}`;
}

/** Statements (executed and missing lines) of the whole set of fixtures, or of one fixture. */
export function statements(info: CoverageInfo, fixture?: string): StatementModel[] {
  const runs = fixture !== undefined ? { [fixture]: info.fixtures[fixture] ?? { lines: [], arcs: [] } } : info.fixtures;
  const lineHits = new Map<number, number>();
  const arcHits = new Map<string, number>();
  for (const f of Object.values(runs)) {
    for (const l of f.lines) {
      lineHits.set(l, (lineHits.get(l) ?? 0) + 1);
    }
    for (const a of f.arcs) {
      arcHits.set(arcKey(a), (arcHits.get(arcKey(a)) ?? 0) + 1);
    }
  }
  const branches = new Map<number, CoverageArc[]>();
  for (const a of [...info.takenArcs, ...info.missingArcs]) {
    const list = branches.get(a[0]) ?? [];
    if (!list.some((b) => arcKey(b) === arcKey(a))) {
      list.push(a);
    }
    branches.set(a[0], list);
  }
  const lines = [...new Set([...info.executed, ...info.missing])].sort((x, y) => x - y);
  return lines.map((line) => ({
    line,
    hits: lineHits.get(line) ?? 0,
    branches: (branches.get(line) ?? [])
      .sort((x, y) => (x[1] === 'exit' ? 1e9 : x[1]) - (y[1] === 'exit' ? 1e9 : y[1]))
      .map((a) => ({ hits: arcHits.get(arcKey(a)) ?? 0, label: dest(a) })),
  }));
}

/** The fixtures (by name) that ran any line of the file. */
export function coveringFixtures(info: CoverageInfo): string[] {
  return Object.entries(info.fixtures).filter(([, f]) => f.lines.length > 0).map(([n]) => n).sort();
}
