// Tree models for the reach view and the Test Explorer, built from the server's answers.
// Pure (no `vscode` import) so mocha tests them; the vscode adapters live in reachView.ts/testing.ts.

import {
  FixtureDifference,
  FixtureResult,
  FixturesResponse,
  LspLocation,
  LspRange,
  REACH_SENTENCE,
  ReachResponse,
  ReachStep,
} from './protocol';
import { plainText } from './markdown';

// ---------------------------------------------------------------- reach view

export type ReachNodeKind = 'workflow' | 'step' | 'network' | 'connections' | 'sources' | 'effects' | 'error' | 'change';

export interface ReachNode {
  id: string;
  kind: ReachNodeKind;
  label: string;
  description?: string;
  tooltip?: string;
  /** codicon id */
  icon: string;
  location?: LspLocation | null;
  children: ReachNode[];
}

export function networkText(network: string): string {
  return network === 'public_egress' ? 'public egress' : network === 'none' ? 'none' : network;
}

function listText(items: string[]): string {
  return items.length ? items.join(', ') : 'none';
}

/** Each effect with what it does where: "post_summary (send to channel finance-requests)". */
export function effectTexts(s: ReachStep): string[] {
  return s.effects.map((e) => {
    const target = s.effect_targets?.[e];
    return target ? `${e} (${target})` : e;
  });
}

/** Each source with where it comes from: "invoices (connection xero)". */
export function sourceTexts(s: ReachStep): string[] {
  return s.sources.map((n) => {
    const origin = s.source_origins?.[n];
    return origin ? `${n} (${origin})` : n;
  });
}

/** One line that says what a step reaches, e.g. "reaches nothing" or "public egress · ecb". */
export function stepSummary(s: ReachStep): string {
  if (s.reaches_nothing) {
    return 'reaches nothing';
  }
  const parts: string[] = [];
  if (s.network && s.network !== 'none') {
    parts.push(networkText(s.network));
  }
  if (s.connections.length) {
    parts.push(`connections: ${s.connections.join(', ')}`);
  }
  if (s.sources.length) {
    parts.push(`sources: ${s.sources.join(', ')}`);
  }
  if (s.effects.length) {
    parts.push(`effects: ${s.effects.join(', ')}`);
  }
  return parts.join(' · ') || 'reaches nothing';
}

export function reachTree(resp: ReachResponse | undefined | null): ReachNode[] {
  const out: ReachNode[] = [];
  const workflows = [...(resp?.workflows ?? [])].sort((a, b) => (a.workflow ?? '').localeCompare(b.workflow ?? '') || a.manifestUri.localeCompare(b.manifestUri));
  for (const wf of workflows) {
    const wfNode: ReachNode = {
      id: `wf:${wf.manifestUri}`,
      kind: 'workflow',
      label: wf.workflow || wf.manifestUri.split('/').slice(-2).join('/'),
      description: wf.error ? 'manifest has errors' : `${wf.steps.length} step${wf.steps.length === 1 ? '' : 's'}`
        + (wf.sinceHead?.widens ? ' · widened since HEAD' : ''),
      tooltip: resp?.sentence ?? REACH_SENTENCE,
      icon: 'symbol-namespace',
      location: { uri: wf.manifestUri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
      children: [],
    };
    if (wf.error) {
      wfNode.children.push({ id: `${wfNode.id}:error`, kind: 'error', label: wf.error, icon: 'error', children: [] });
    }
    // manifest order is kept: that is the order the author reads
    for (const s of wf.steps) {
      const sid = `${wfNode.id}#${s.step_id}`;
      const leaf = (kind: ReachNodeKind, label: string, value: string, icon: string): ReachNode => ({
        id: `${sid}:${kind}`, kind, label, description: value, icon, children: [],
      });
      const changes = s.changesSinceHead ?? [];
      const widened = changes.some((c) => c.widens);
      wfNode.children.push({
        id: sid,
        kind: 'step',
        label: s.step_id,
        description: (widened ? 'widened since HEAD · ' : '') + stepSummary(s),
        tooltip: `${s.explanation}\n\n${resp?.sentence ?? REACH_SENTENCE}`,
        icon: widened ? 'warning' : s.reaches_nothing ? 'circle-large-outline' : s.network === 'public_egress' ? 'globe' : 'plug',
        location: s.location ?? s.codeLocation ?? null,
        children: [
          leaf('network', 'network', networkText(s.network), s.network === 'public_egress' ? 'globe' : 'circle-slash'),
          leaf('connections', 'connections', listText(s.connections), 'plug'),
          leaf('sources', 'sources', listText(sourceTexts(s)), 'database'),
          leaf('effects', 'effects', listText(effectTexts(s)), 'zap'),
          ...changes.map((c, i): ReachNode => ({
            id: `${sid}:change:${i}:${c.kind}`, kind: 'change', label: c.widens ? 'widened' : 'changed',
            description: c.description, icon: c.widens ? 'warning' : 'diff', children: [],
          })),
        ],
      });
    }
    out.push(wfNode);
  }
  return out;
}

/** Plain-text table used by the "Show reach" command (a Markdown document). */
export function reachMarkdown(resp: ReachResponse | undefined | null): string {
  // names and errors are workflow data: plain text (issue 18), one line per table cell
  const cell = (s: string) => plainText(s).replace(/\r\n|\r|\n/g, ' ');
  const lines: string[] = ['# What each step can reach', '', `_${REACH_SENTENCE}_`, ''];
  for (const wf of resp?.workflows ?? []) {
    lines.push(`## ${cell(wf.workflow ?? wf.manifest)}`, '');
    if (wf.error) {
      lines.push(`Manifest error: ${plainText(wf.error)}`, '');
      continue;
    }
    lines.push('| step | network | connections | sources | effects |', '|---|---|---|---|---|');
    for (const s of wf.steps) {
      lines.push(`| ${cell(s.step_id)} | ${cell(networkText(s.network))} | ${cell(listText(s.connections))} | ${cell(listText(sourceTexts(s)))} | ${cell(listText(effectTexts(s)))} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------- Test Explorer

export type TestKind = 'workflow' | 'step' | 'fixture';

export interface TestNode {
  id: string;
  kind: TestKind;
  label: string;
  uri: string;
  range?: LspRange | null;
  manifestUri: string;
  stepId?: string;
  children: TestNode[];
}

export function workflowTestId(manifestUri: string): string {
  return manifestUri;
}
export function stepTestId(manifestUri: string, stepId: string): string {
  return `${manifestUri}#${stepId}`;
}
export function fixtureTestId(fixtureUri: string): string {
  return fixtureUri;
}

export function testTree(resp: FixturesResponse | undefined | null): TestNode[] {
  const out: TestNode[] = [];
  for (const wf of resp?.workflows ?? []) {
    const wfNode: TestNode = {
      id: workflowTestId(wf.manifestUri), kind: 'workflow', label: wf.workflow ?? wf.manifestUri.split('/').slice(-2).join('/'), uri: wf.manifestUri,
      manifestUri: wf.manifestUri, children: [],
    };
    for (const s of wf.steps) {
      const stepNode: TestNode = {
        id: stepTestId(wf.manifestUri, s.id), kind: 'step', label: s.id, uri: s.uri, range: s.range ?? null,
        manifestUri: wf.manifestUri, stepId: s.id, children: [],
      };
      for (const f of [...s.fixtures].sort((a, b) => a.name.localeCompare(b.name))) {
        stepNode.children.push({
          id: fixtureTestId(f.uri), kind: 'fixture', label: f.name, uri: f.uri, range: null,
          manifestUri: wf.manifestUri, stepId: s.id, children: [],
        });
      }
      wfNode.children.push(stepNode);
    }
    out.push(wfNode);
  }
  return out;
}

/** Which server command runs a test node: fixtures alone, steps as a whole, workflows step by step. */
export interface RunCall { command: string; args: unknown[]; covers: TestNode[] }

export function runCallsFor(nodes: TestNode[]): RunCall[] {
  const calls: RunCall[] = [];
  const seen = new Set<string>();
  const visit = (n: TestNode) => {
    if (seen.has(n.id)) {
      return;
    }
    seen.add(n.id);
    if (n.kind === 'workflow') {
      n.children.forEach(visit);
    } else if (n.kind === 'step') {
      n.children.forEach((c) => seen.add(c.id));
      if (n.children.length) {
        calls.push({ command: 'stepsmith.runStepFixtures', args: [n.manifestUri, n.stepId], covers: n.children });
      }
    } else {
      calls.push({ command: 'stepsmith.runFixture', args: [n.uri], covers: [n] });
    }
  };
  nodes.forEach(visit);
  return calls;
}

export type Outcome =
  | { kind: 'passed' }
  | { kind: 'failed'; message: string; diff: string; expected?: string; actual?: string }
  | { kind: 'errored'; message: string }
  | { kind: 'skipped' };

/**
 * Expected and actual texts for TestMessage.diff, from the server's structured result: one
 * line per typed difference (`path: value`), or, for a large value the server compared as a
 * whole (no field differences), the two sides of its unified diff.
 */
export function splitDiff(diff: string, differences: FixtureDifference[] = []): { expected: string; actual: string } | undefined {
  if (differences.length) {
    const side = (d: FixtureDifference, which: 'expected' | 'actual') =>
      which in d ? `${d.path}: ${JSON.stringify(d[which])}` : `${d.path}: (${which === 'expected' ? 'missing' : 'absent'})`;
    return { expected: differences.map((d) => side(d, 'expected')).join('\n'), actual: differences.map((d) => side(d, 'actual')).join('\n') };
  }
  if (!diff) {
    return undefined;
  }
  const exp: string[] = [];
  const act: string[] = [];
  for (const line of diff.split(/\r?\n/)) {
    if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('@@') || line === '') {
      continue;
    }
    if (line.startsWith('-')) {
      exp.push(line.slice(1));
    } else if (line.startsWith('+')) {
      act.push(line.slice(1));
    } else {
      const t = line.startsWith(' ') ? line.slice(1) : line;
      exp.push(t);
      act.push(t);
    }
  }
  if (!exp.length && !act.length) {
    return undefined;
  }
  return { expected: exp.join('\n'), actual: act.join('\n') };
}

export function outcomeOf(r: FixtureResult | undefined): Outcome {
  if (!r) {
    return { kind: 'errored', message: 'the server returned no result for this fixture' };
  }
  switch (r.outcome ?? r.status) {
    case 'passed':
    case 'recorded':
      return { kind: 'passed' };
    case 'failed': {
      const parts = splitDiff(r.diff, r.differences ?? []);
      return { kind: 'failed', message: r.message || 'output differs from the fixture', diff: r.diff, ...parts };
    }
    default:
      return { kind: 'errored', message: r.message || `status ${r.status}` };
  }
}

/** Where a fixture's result is shown: the range the server sent (its top-level "expected" key,
 * found by the server's JSON locator), the file's start when it sent none. Never a text search. */
export function failureRange(r: FixtureResult | undefined): LspRange {
  return r?.target ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}

/** The step whose location (manifest entry or def) contains the position, if any. */
export function stepAt(resp: ReachResponse | undefined | null, uri: string, line: number): { manifestUri: string; step: ReachStep } | undefined {
  let best: { manifestUri: string; step: ReachStep; start: number } | undefined;
  for (const wf of resp?.workflows ?? []) {
    for (const s of wf.steps) {
      for (const loc of [s.location, s.codeLocation]) {
        if (loc && loc.uri === uri && loc.range.start.line <= line) {
          // the nearest step starting at or above the line (a def's range may be only its name)
          if (!best || loc.range.start.line > best.start) {
            best = { manifestUri: wf.manifestUri, step: s, start: loc.range.start.line };
          }
        }
      }
    }
  }
  return best ? { manifestUri: best.manifestUri, step: best.step } : undefined;
}
