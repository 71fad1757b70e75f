// What the fixture-strength command shows of a `stepsmith/mutants` answer. Pure (unit-tested).

import type { MutantRecord, MutantsResponse } from './protocol';

export interface SurvivorItem { label: string; description: string; detail: string; record: MutantRecord }

/** The survivors, in the order the server sends them (survivors first, by position). */
export function survivors(resp: MutantsResponse | undefined): MutantRecord[] {
  return (resp?.mutants ?? []).filter((m) => m.status === 'survived');
}

/** One quick-pick entry per survivor: where, what changed, what to record. */
export function survivorItems(resp: MutantsResponse | undefined): SurvivorItem[] {
  return survivors(resp).map((m) => ({
    label: `${m.line}:${m.column + 1}  ${m.original ? `${m.original} → ${m.replacement}` : `+ ${m.replacement}`}`,
    description: `${m.operator} · ${m.steps.join(', ')}`,
    detail: m.hint,
    record: m,
  }));
}

/** The one-line result: "2 of 14 mutants survive (85.7% noticed)". */
export function summaryLine(resp: MutantsResponse | undefined): string {
  if (!resp || resp.cancelled) {
    return 'Stepsmith: the mutants run was cancelled.';
  }
  const s = resp.summary;
  if (!s || !s.mutants) {
    return 'Stepsmith: no mutant to judge here (no step code, or every line opted out).';
  }
  const timeouts = s.timeout ? `, ${s.timeout} stopped by a limit (counted as noticed)` : '';
  if (!s.survived) {
    return `Stepsmith: every one of ${s.mutants} mutants is noticed by a fixture${timeouts}.`;
  }
  return `Stepsmith: ${s.survived} of ${s.mutants} mutant${s.mutants === 1 ? '' : 's'} survive`
    + ` (${s.score.toFixed(1)}% noticed${timeouts}).`;
}

/** The lens title the server gives a step, for a count of survivors. */
export function lensTitle(alive: number): string {
  return alive ? `${alive} mutant${alive === 1 ? ' survives' : 's survive'}` : '✓ every mutant noticed';
}
