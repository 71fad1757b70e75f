// "Pending Fixture Changes": workflow -> step -> fixture, fed by the server's
// stepsmith.pending.list (the same use case as `stepsmith review`). Clicking a change opens a
// diff editor (accepted fixture <-> new result) whose title bar has Accept / Reject.

import * as vscode from 'vscode';
import { PendingItem, PendingListResponse, PendingDecisionResponse, ServerCommands } from './protocol';
import { ServerManager } from './server';

export const PENDING_SCHEME = 'stepsmith-pending';

export type PendingNode =
  | { kind: 'workflow'; label: string; children: PendingNode[] }
  | { kind: 'step'; label: string; children: PendingNode[] }
  | { kind: 'change'; label: string; item: PendingItem };

/** Groups the server's items as workflow -> step -> fixture (problems sit under the workflow). */
export function pendingTree(items: PendingItem[]): PendingNode[] {
  const wfs = new Map<string, { kind: 'workflow'; label: string; children: PendingNode[] }>();
  for (const it of items) {
    let wf = wfs.get(it.workflow);
    if (!wf) {
      wf = { kind: 'workflow', label: it.workflow, children: [] };
      wfs.set(it.workflow, wf);
    }
    if (!it.step) {
      wf.children.push({ kind: 'change', label: it.id, item: it });
      continue;
    }
    let step = wf.children.find((c) => c.kind === 'step' && c.label === it.step) as { kind: 'step'; label: string; children: PendingNode[] } | undefined;
    if (!step) {
      step = { kind: 'step', label: it.step, children: [] };
      wf.children.push(step);
    }
    step.children.push({ kind: 'change', label: it.case ?? it.id, item: it });
  }
  return [...wfs.values()];
}

export class PendingProvider implements vscode.TreeDataProvider<PendingNode>, vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<PendingNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly docChanged = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.docChanged.event;
  readonly view: vscode.TreeView<PendingNode>;
  items: PendingItem[] = [];
  roots: PendingNode[] = [];
  private disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly server: ServerManager) {
    this.view = vscode.window.createTreeView('stepsmith.pending', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.view,
      this.changed,
      this.docChanged,
      vscode.workspace.registerTextDocumentContentProvider(PENDING_SCHEME, this),
      server.onDidChangeState((s) => s === 'running' && this.scheduleRefresh(0)),
      server.onFixtureResults(() => this.scheduleRefresh(200)),
    );
  }

  scheduleRefresh(delay = 400): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  async refresh(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.items = [];
      this.view.message = 'Stepsmith runs nothing in an untrusted workspace, so nothing is pending.';
    } else {
      try {
        const resp = await this.server.executeServerCommand<PendingListResponse>(ServerCommands.pendingList, []);
        this.items = resp?.items ?? [];
        this.view.message = this.items.length ? undefined : 'No pending fixture changes. A failing fixture run writes one here.';
      } catch (e) {
        this.server.output.warn(`pending: ${(e as Error).message}`);
      }
    }
    this.roots = pendingTree(this.items);
    this.view.badge = this.items.length ? { value: this.items.length, tooltip: `${this.items.length} pending fixture change(s)` } : undefined;
    this.changed.fire(undefined);
    for (const it of this.items) {
      this.docChanged.fire(newUri(it));
    }
  }

  getChildren(n?: PendingNode): PendingNode[] {
    return n ? ('children' in n ? n.children : []) : this.roots;
  }

  getTreeItem(n: PendingNode): vscode.TreeItem {
    if (n.kind !== 'change') {
      const t = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.Expanded);
      t.contextValue = n.kind;
      t.iconPath = new vscode.ThemeIcon(n.kind === 'workflow' ? 'workflow' : 'symbol-function');
      return t;
    }
    const it = n.item;
    const t = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    t.id = it.pendingUri;
    if (it.problem) {
      t.description = 'unusable';
      t.tooltip = it.problem;
      t.iconPath = new vscode.ThemeIcon('warning');
      t.contextValue = 'pendingProblem';
      return t;
    }
    const first = it.differences?.[0];
    t.description = it.isNew ? 'new fixture' : first ? `${first.path}: ${first.message}` : 'changed';
    t.tooltip = (it.differences ?? []).map((d) => `${d.path}: ${d.message}`).join('\n') || it.id;
    t.iconPath = new vscode.ThemeIcon('diff');
    t.contextValue = 'pendingChange';
    t.command = { command: 'stepsmith.review.open', title: 'Open Diff', arguments: [it] };
    return t;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const it = this.items.find((i) => newUri(i).toString() === uri.toString());
    return it?.newText ?? '';
  }

  byUri(uri: vscode.Uri | undefined): PendingItem | undefined {
    if (!uri) {
      return undefined;
    }
    const s = uri.toString();
    return this.items.find((i) => newUri(i).toString() === s || i.fixtureUri === s || i.pendingUri === s);
  }

  async open(it: PendingItem): Promise<void> {
    const left = it.isNew ? vscode.Uri.parse('untitled:(no fixture yet)') : vscode.Uri.parse(it.fixtureUri!);
    await vscode.commands.executeCommand('vscode.diff', left, newUri(it), `${it.case}.json: accepted ↔ new (${it.step})`);
  }

  async decide(command: string, uris: string[] | undefined): Promise<PendingDecisionResponse | undefined> {
    const resp = await this.server.executeServerCommand<PendingDecisionResponse>(command, uris ?? []);
    const refused = (resp?.decisions ?? []).filter((d) => d.outcome === 'refused');
    if (refused.length) {
      void vscode.window.showErrorMessage(`Stepsmith: ${refused.map((d) => `${d.id}: ${d.message}`).join('; ')}`);
    } else if (resp?.summary) {
      void vscode.window.setStatusBarMessage(`Stepsmith: ${resp.summary}`, 5000);
    }
    await this.refresh();
    return resp;
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.disposables.forEach((d) => d.dispose());
  }
}

export function newUri(it: PendingItem): vscode.Uri {
  return vscode.Uri.from({ scheme: PENDING_SCHEME, path: `/${it.workflow}/${it.step ?? ''}/${it.case ?? 'problem'}.json`, query: it.pendingUri });
}

export function registerPendingCommands(context: vscode.ExtensionContext, pending: PendingProvider): void {
  const current = (arg: unknown): PendingItem | undefined => {
    if (arg && typeof arg === 'object' && 'item' in (arg as object)) {
      return (arg as { item: PendingItem }).item; // a tree node
    }
    if (arg instanceof vscode.Uri) {
      return pending.byUri(arg);
    }
    const editor = vscode.window.activeTextEditor;
    return pending.byUri(editor?.document.uri);
  };
  const closeDiff = async () => {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (tab?.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PENDING_SCHEME) {
      await vscode.window.tabGroups.close(tab);
    }
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('stepsmith.review.open', (it: PendingItem) => pending.open(it)),
    vscode.commands.registerCommand('stepsmith.showPending', async () => {
      await vscode.commands.executeCommand('stepsmith.pending.focus');
      await pending.refresh();
    }),
    vscode.commands.registerCommand('stepsmith.review.refresh', () => pending.refresh()),
    vscode.commands.registerCommand('stepsmith.review.acceptCurrent', async (arg?: unknown) => {
      const it = current(arg);
      if (it) {
        await closeDiff();
        await pending.decide(ServerCommands.pendingAccept, [it.pendingUri]);
      }
    }),
    vscode.commands.registerCommand('stepsmith.review.rejectCurrent', async (arg?: unknown) => {
      const it = current(arg);
      if (it) {
        await closeDiff();
        await pending.decide(ServerCommands.pendingReject, [it.pendingUri]);
      }
    }),
    vscode.commands.registerCommand('stepsmith.review.acceptAll', () => pending.decide(ServerCommands.pendingAcceptAll, undefined)),
    vscode.commands.registerCommand('stepsmith.review.rejectAll', () => pending.decide(ServerCommands.pendingRejectAll, undefined)),
    // "Accept this output" on a Test Explorer failure: the fixture's pending change
    vscode.commands.registerCommand('stepsmith.review.acceptTestOutput', async (arg?: { test?: vscode.TestItem }) => {
      await pending.refresh();
      const it = pending.byUri(arg?.test?.uri);
      if (!it) {
        void vscode.window.showWarningMessage('Stepsmith: this fixture has no pending change (run it again first).');
        return;
      }
      await pending.decide(ServerCommands.pendingAccept, [it.pendingUri]);
    }),
  );
}
