// Types of the stepsmith language server's custom protocol (server/PROTOCOL.md). Pure.

// The shapes declared once in Python (server/protocol.py, runner/app/shapes.py), generated.
import type { LspRange } from './generated/protocol';
export type {
  CheckInput, ExplainRuleInput, FixtureInfo, FixtureStep, FixtureWorkflow, FixturesResponse, Interpreter, LspLocation,
  LspPosition, LspRange, ProposeFixtureInput, PythonResponse, ReachChange, ReachInput, ReachResponse, ReachStep,
  ReachWorkflow, RuleDoc, RunStepInput, SinceHead, StatusResponse, TestInput, WorkflowPython,
} from './generated/protocol';

export const REACH_SENTENCE = 'This is what each step is permitted to reach, not a review of what its code does.';

export type FixtureStatus = 'passed' | 'failed' | 'error' | 'recorded';

/** A fixture run's result, structured (server/PROTOCOL.md): `differences` typed, `diff` their rendering. */
export interface FixtureDifference { path: string; kind: string; message: string; expected?: unknown; actual?: unknown; note?: string }
export interface FixtureResult {
  fixture: string; uri: string; status: FixtureStatus; message: string; diff: string; stdout?: string; pendingUri?: string;
  outcome?: FixtureStatus; messages?: string[]; differences?: FixtureDifference[];
  /** where the result is shown in the fixture file: its top-level "expected" key, else its start (null: no file) */
  target?: LspRange | null;
}

/** stepsmith.pending.* (server/PROTOCOL.md): typed differences, rendered by the server too. */
export interface PendingDifference { path: string; kind: string; message: string; expected?: unknown; actual?: unknown; note?: string }
export interface PendingItem {
  id: string; workflow: string; manifestUri: string; pendingUri: string;
  step?: string; case?: string; fixtureUri?: string; source?: string; isNew?: boolean;
  differences?: PendingDifference[]; oldText?: string; newText?: string; problem?: string;
}
export interface PendingListResponse { items: PendingItem[] }
export interface PendingDecision { id: string; outcome: 'accepted' | 'already' | 'rejected' | 'skipped' | 'refused'; message: string }
export interface PendingDecisionResponse { decisions: PendingDecision[]; summary: string }
export interface RunResponse { results: FixtureResult[] }
export interface FixtureResultsNotification { manifestUri: string; stepId: string; results: FixtureResult[] }

/** stepsmith/coverage (server/PROTOCOL.md): 0-based lines; an arc ends in "exit" when it leaves the function. */
export type CoverageArc = [number, number | 'exit'];
export interface CoverageInfo {
  executed: number[]; missing: number[]; takenArcs: CoverageArc[]; missingArcs: CoverageArc[];
  fixtures: Record<string, { lines: number[]; arcs: CoverageArc[] }>; percent: number; stale: boolean;
}
export interface CoverageResponse { uri: string; coverage: CoverageInfo | null }
export interface PickFixtureResponse { fixture: string | null; fixtures: { name: string; passed: boolean }[] }

export const Requests = {
  coverage: 'stepsmith/coverage',
  reach: 'stepsmith/reach',
  fixtures: 'stepsmith/fixtures',
  status: 'stepsmith/status',
  python: 'stepsmith/python',
  rule: 'stepsmith/rule',
  agentTool: 'stepsmith/agentTool',
} as const;

export const Notifications = { fixtureResults: 'stepsmith/fixtureResults' } as const;

export const ServerCommands = {
  runStepFixtures: 'stepsmith.runStepFixtures',
  runFixture: 'stepsmith.runFixture',
  recordFixture: 'stepsmith.recordFixture',
  valuesPickFixture: 'stepsmith.values.pickFixture',
  pendingList: 'stepsmith.pending.list',
  pendingAccept: 'stepsmith.pending.accept',
  pendingReject: 'stepsmith.pending.reject',
  pendingAcceptAll: 'stepsmith.pending.acceptAll',
  pendingRejectAll: 'stepsmith.pending.rejectAll',
} as const;

/** stepsmith/mutants {uri} and the stepsmith.mutants command (server/PROTOCOL.md): the records
 * of `stepsmith mutants --format json`, each with its LSP `range` in the file asked about. */
export type MutantStatus = 'killed' | 'survived' | 'timeout' | 'error';
export interface MutantRecord {
  path: string; uri: string; line: number; column: number; end_line: number; end_column: number;
  operator: string; original: string; replacement: string; status: MutantStatus;
  killed_by: string | null; fixtures_run: number; duration_ms: number; steps: string[];
  hint: string; note: string; cached: number; range?: LspRange;
}
export interface MutantsSummary {
  mutants: number; killed: number; survived: number; timeout: number; error: number;
  seconds: number; score: number; refused: number; opted_out: number; cancelled: boolean;
}
export interface MutantsResponse {
  uri: string; mutants: MutantRecord[]; summary?: MutantsSummary; cancelled?: boolean;
  opted_out?: { path: string; line: number; text: string; mutants: number }[]; notes?: string[];
}
export const Mutants = {
  request: 'stepsmith/mutants', command: 'stepsmith.mutants', results: 'stepsmith/mutantResults',
} as const;
