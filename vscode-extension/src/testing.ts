// Fixtures in the Test Explorer: workflow -> step -> fixture, run through the server's commands
// (each fixture runs in its own sandbox on the server side). No debug profile: steps run sandboxed.
// Profiles: run; run with coverage (the server traces every editor run: `stepsmith/coverage`
// fills the Test Coverage API, per fixture through loadDetailedCoverageForTest); run with
// repeat (each fixture 3 times in fresh sandboxes, failing when two runs disagree).

export const REPEAT = 3;

/** A step file's coverage as the server answered it, kept for the per-fixture detail. */
class StepFileCoverage extends vscode.FileCoverage {
  constructor(uri: vscode.Uri, readonly info: CoverageInfo, readonly fixtureItems: Map<string, vscode.TestItem>) {
    const s = statements(info);
    const branches = s.flatMap((x) => x.branches);
    super(uri, new vscode.TestCoverageCount(s.filter((x) => x.hits > 0).length, s.length),
      branches.length ? new vscode.TestCoverageCount(branches.filter((b) => b.hits > 0).length, branches.length) : undefined);
    // VS Code 1.93+: which tests ran this file (our @types are older)
    (this as unknown as { includesTests: vscode.TestItem[] }).includesTests = [...fixtureItems.values()];
  }

  details(fixture?: string): vscode.FileCoverageDetail[] {
    return statements(this.info, fixture).map((x) => new vscode.StatementCoverage(x.hits, new vscode.Position(x.line, 0),
      x.branches.map((b) => new vscode.BranchCoverage(b.hits, undefined, b.label))));
  }
}

import * as vscode from 'vscode';
import { statements } from './coverage';
import { failureRange, fixtureTestId, outcomeOf, runCallsFor, stepTestId, testTree, TestNode } from './models';
import { CoverageInfo, CoverageResponse, FixtureResult, FixturesResponse, FixtureResultsNotification, Requests, RunResponse } from './protocol';
import { ServerManager } from './server';
import { toRange } from './util';
import { failureMarkdown } from './markdown';

export class FixtureTests implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly nodes = new Map<string, TestNode>();
  private disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** fixture uris being run by a TestRun of ours (their notifications are not reported twice) */
  private inRun = new Set<string>();
  private readonly refreshedEmitter = new vscode.EventEmitter<void>();
  readonly onDidRefresh = this.refreshedEmitter.event;
  /** the last outcome reported per test id (read by the integration tests through the API) */
  readonly outcomes = new Map<string, { kind: string; message?: string; diff?: string; location?: vscode.Location }>();

  constructor(private readonly server: ServerManager) {
    this.controller = vscode.tests.createTestController('stepsmith', 'Stepsmith fixtures');
    this.controller.refreshHandler = async () => {
      await this.refresh();
    };
    const profile = this.controller.createRunProfile('Run in sandbox', vscode.TestRunProfileKind.Run, (req, token) => this.runHandler(req, token), true);
    const repeat = this.controller.createRunProfile(`Run with Repeat (${REPEAT}×)`, vscode.TestRunProfileKind.Run, (req, token) => this.runHandler(req, token, { repeat: REPEAT }), false);
    const coverage = this.controller.createRunProfile('Run with Coverage', vscode.TestRunProfileKind.Coverage, (req, token) => this.runHandler(req, token, { coverage: true }), true);
    coverage.loadDetailedCoverage = async (_run, fc) => (fc instanceof StepFileCoverage ? fc.details() : []);
    (coverage as unknown as { loadDetailedCoverageForTest: unknown }).loadDetailedCoverageForTest = async (_run: vscode.TestRun, fc: vscode.FileCoverage, test: vscode.TestItem) =>
      fc instanceof StepFileCoverage ? fc.details(test.label) : [];
    this.disposables.push(
      this.controller,
      profile,
      repeat,
      coverage,
      this.refreshedEmitter,
      server.onDidChangeState((s) => {
        if (s === 'running') {
          this.scheduleRefresh(0);
        }
      }),
      server.onManifestChanged(() => this.scheduleRefresh()),
      server.onFixtureResults((n) => this.onResults(n)),
      // steps added, renamed or removed in a manifest being edited
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (/(^|\/)([^/]+\.)?workflow\.yaml$/.test(e.document.uri.path)) {
          this.scheduleRefresh(1000);
        }
      }),
    );
    const fixtureWatcher = vscode.workspace.createFileSystemWatcher('**/fixtures/**/*.json');
    fixtureWatcher.onDidCreate(() => this.scheduleRefresh());
    fixtureWatcher.onDidDelete(() => this.scheduleRefresh());
    this.disposables.push(fixtureWatcher);
  }

  scheduleRefresh(delay = 500): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  async refresh(): Promise<void> {
    let resp: FixturesResponse | undefined;
    try {
      resp = await this.server.requestWorkflows<FixturesResponse>(Requests.fixtures, {});
    } catch (e) {
      this.server.output.warn(`fixtures: ${(e as Error).message}`);
      return;
    }
    const tree = testTree(resp);
    this.nodes.clear();
    const build = (n: TestNode): vscode.TestItem => {
      this.nodes.set(n.id, n);
      const item = this.controller.createTestItem(n.id, n.label, vscode.Uri.parse(n.uri));
      if (n.range) {
        item.range = toRange(n.range);
      } else if (n.kind === 'fixture') {
        item.range = new vscode.Range(0, 0, 0, 0);
      }
      item.children.replace(n.children.map(build));
      return item;
    };
    this.controller.items.replace(tree.map(build));
    this.refreshedEmitter.fire();
  }

  private fixtureItems(item: vscode.TestItem, out: vscode.TestItem[] = []): vscode.TestItem[] {
    const n = this.nodes.get(item.id);
    if (n?.kind === 'fixture') {
      out.push(item);
    }
    item.children.forEach((c) => this.fixtureItems(c, out));
    return out;
  }

  private itemById(id: string): vscode.TestItem | undefined {
    let found: vscode.TestItem | undefined;
    const walk = (col: vscode.TestItemCollection) =>
      col.forEach((i) => {
        if (!found) {
          if (i.id === id) {
            found = i;
          } else {
            walk(i.children);
          }
        }
      });
    walk(this.controller.items);
    return found;
  }

  async runHandler(req: vscode.TestRunRequest, token: vscode.CancellationToken, opts: { coverage?: boolean; repeat?: number } = {}): Promise<void> {
    const run = this.controller.createTestRun(req);
    const ran = new Map<string, Map<string, vscode.TestItem>>(); // step file uri -> fixture name -> item
    try {
      if (!vscode.workspace.isTrusted) {
        run.appendOutput('Stepsmith runs nothing in an untrusted workspace.\r\n');
        const roots: vscode.TestItem[] = [];
        (req.include ?? []).forEach((i) => roots.push(i));
        if (!req.include) {
          this.controller.items.forEach((i) => roots.push(i));
        }
        for (const r of roots) {
          for (const f of this.fixtureItems(r)) {
            this.outcomes.set(f.id, { kind: 'skipped', message: 'untrusted workspace' });
            run.skipped(f);
          }
        }
        return;
      }
      const roots: vscode.TestItem[] = [];
      if (req.include) {
        roots.push(...req.include);
      } else {
        this.controller.items.forEach((i) => roots.push(i));
      }
      const excluded = new Set((req.exclude ?? []).map((i) => i.id));
      const nodes = roots.filter((r) => !excluded.has(r.id)).map((r) => this.nodes.get(r.id)).filter((n): n is TestNode => !!n);
      const calls = runCallsFor(nodes);
      for (const call of calls) {
        for (const c of call.covers) {
          const item = this.itemById(c.id);
          if (item && !excluded.has(item.id)) {
            run.started(item);
            this.inRun.add(c.id);
          }
        }
      }
      for (const call of calls) {
        if (token.isCancellationRequested) {
          break;
        }
        let results: FixtureResult[] = [];
        let failure: string | undefined;
        try {
          const args = opts.repeat ? [...call.args, { repeat: opts.repeat }] : call.args;
          const resp = await this.server.executeServerCommand<RunResponse>(call.command, args);
          results = resp?.results ?? [];
          if (!resp) {
            failure = 'the language server is not running';
          }
        } catch (e) {
          failure = (e as Error).message;
        }
        const byUri = new Map(results.map((r) => [fixtureTestId(r.uri), r]));
        const byName = new Map(results.map((r) => [r.fixture, r]));
        for (const c of call.covers) {
          const item = this.itemById(c.id);
          if (!item || excluded.has(item.id)) {
            continue;
          }
          this.inRun.delete(c.id);
          const stepUri = this.nodes.get(stepTestId(c.manifestUri, c.stepId ?? ''))?.uri;
          if (stepUri) {
            (ran.get(stepUri) ?? ran.set(stepUri, new Map()).get(stepUri)!).set(item.label, item);
          }
          if (failure) {
            this.outcomes.set(item.id, { kind: 'errored', message: failure });
            run.errored(item, new vscode.TestMessage(failure));
            continue;
          }
          this.report(run, item, byUri.get(c.id) ?? byName.get(c.label));
        }
      }
      if (opts.coverage) {
        await this.addCoverage(run, ran);
      }
    } finally {
      this.inRun.clear();
      run.end();
    }
  }

  /** The server's coverage of each step file the run's fixtures exercised. */
  private async addCoverage(run: vscode.TestRun, ran: Map<string, Map<string, vscode.TestItem>>): Promise<void> {
    for (const [uri, items] of ran) {
      try {
        const resp = await this.server.request<CoverageResponse>(Requests.coverage, { uri });
        if (resp?.coverage) {
          run.addCoverage(new StepFileCoverage(vscode.Uri.parse(uri), resp.coverage, items));
        }
      } catch (e) {
        run.appendOutput(`coverage of ${uri}: ${(e as Error).message}\r\n`);
      }
    }
  }

  private report(run: vscode.TestRun, item: vscode.TestItem, r: FixtureResult | undefined): void {
    const outcome = outcomeOf(r);
    this.outcomes.set(item.id, { kind: outcome.kind, message: 'message' in outcome ? outcome.message : undefined, diff: outcome.kind === 'failed' ? outcome.diff : undefined });
    if (r?.message) {
      run.appendOutput(`${item.label}: ${r.status}: ${r.message}\r\n`.replace(/\n(?!$)/g, '\r\n'), undefined, item);
    }
    if (r?.stdout) { // the step's print() output, captured and capped by the sandbox
      run.appendOutput(`${item.label}: captured stdout:\r\n${r.stdout.replace(/\r?\n/g, '\r\n')}${r.stdout.endsWith('\n') ? '' : '\r\n'}`, undefined, item);
    }
    switch (outcome.kind) {
      case 'passed':
        run.passed(item);
        break;
      case 'failed': {
        const msg =
          outcome.expected !== undefined && outcome.actual !== undefined
            ? vscode.TestMessage.diff(outcome.message, outcome.expected, outcome.actual)
            : new vscode.TestMessage(new vscode.MarkdownString(failureMarkdown(outcome.message, outcome.diff)));
        msg.location = this.failureLocation(item, r);
        if (r?.pendingUri) {
          msg.contextValue = 'stepsmith.pending'; // offers "Accept this output" on the message
        }
        this.outcomes.get(item.id)!.location = msg.location;
        run.failed(item, msg);
        break;
      }
      case 'errored': {
        const msg = new vscode.TestMessage(outcome.message);
        msg.location = this.failureLocation(item, r);
        run.errored(item, msg);
        break;
      }
      case 'skipped':
        run.skipped(item);
    }
  }

  /** Failures are shown where the server says: the fixture's own "expected" key. */
  private failureLocation(item: vscode.TestItem, r: FixtureResult | undefined): vscode.Location | undefined {
    return item.uri ? new vscode.Location(item.uri, toRange(failureRange(r))) : undefined;
  }

  /** Runs the server did on its own (save/type, code lens) also show up in the Test Explorer. */
  private onResults(n: FixtureResultsNotification): void {
    const pending = n.results.filter((r) => !this.inRun.has(fixtureTestId(r.uri)));
    const items = pending.map((r) => this.itemById(fixtureTestId(r.uri))).filter((i): i is vscode.TestItem => !!i);
    if (!items.length) {
      return;
    }
    const run = this.controller.createTestRun(new vscode.TestRunRequest(items), `${n.stepId} (run by the server)`, false);
    for (const r of pending) {
      const item = this.itemById(fixtureTestId(r.uri));
      if (item) {
        this.report(run, item, r);
      }
    }
    run.end();
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.disposables.forEach((d) => d.dispose());
  }
}
