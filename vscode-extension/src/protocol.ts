// Types of the stepsmith language server's custom protocol (server/PROTOCOL.md). Pure.

// The shapes declared once in Python (server/protocol.py, runner/app/shapes.py), generated.
import type { CoverageInfo, Difference, FixtureResult, MutantEntry } from './generated/protocol';
export type {
  CheckInput, CoverageInfo, CoverageResponse, Difference, ExplainRuleInput, FixtureInfo, FixtureResult,
  FixtureResultsNotification, FixtureStep, FixtureWorkflow, FixturesResponse, Interpreter, LspLocation, LspPosition,
  LspRange, MutantEntry, MutantResultsNotification, MutantsResponse, MutantsSummary, OptedOutLine,
  PendingDecision, PendingDecisionResponse, PendingItem, PendingListResponse, PickFixtureResponse,
  ProposeFixtureInput, PythonResponse, ReachChange, ReachInput, ReachResponse, ReachStep, ReachWorkflow, RuleDoc,
  RunResponse, RunStepInput, SinceHead, StatusResponse, TestInput, WorkflowPython,
} from './generated/protocol';

export type FixtureStatus = FixtureResult['status'];
export type FixtureDifference = Difference;
export type PendingDifference = Difference;
/** 0-based lines; an arc that leaves the function ends in "exit". */
export type CoverageArc = CoverageInfo['takenArcs'][number];
export type MutantRecord = MutantEntry;
export type MutantStatus = MutantEntry['status'];

export const REACH_SENTENCE = 'This is what each step is permitted to reach, not a review of what its code does.';

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

export const Mutants = {
  request: 'stepsmith/mutants', command: 'stepsmith.mutants', results: 'stepsmith/mutantResults',
} as const;
