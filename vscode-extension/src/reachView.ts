// "What each step can reach": a tree view in the Explorer, fed by stepsmith/reach.

import * as vscode from 'vscode';
import { reachTree, ReachNode } from './models';
import { REACH_SENTENCE, ReachResponse, Requests } from './protocol';
import { ServerManager } from './server';
import { toRange } from './util';

export class ReachProvider implements vscode.TreeDataProvider<ReachNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ReachNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  roots: ReachNode[] = [];
  last: ReachResponse | undefined;
  readonly view: vscode.TreeView<ReachNode>;
  private disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly refreshedEmitter = new vscode.EventEmitter<ReachNode[]>();
  readonly onDidRefresh = this.refreshedEmitter.event;

  constructor(private readonly server: ServerManager) {
    this.view = vscode.window.createTreeView('stepsmith.reach', { treeDataProvider: this, showCollapseAll: true });
    this.view.message = REACH_SENTENCE;
    this.view.description = 'permitted, not reviewed';
    this.disposables.push(
      this.view,
      this.changed,
      this.refreshedEmitter,
      server.onDidChangeState((s) => {
        if (s === 'running' || s === 'failed') {
          this.scheduleRefresh(0);
        }
      }),
      server.onManifestChanged(() => this.scheduleRefresh()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (/(^|\/)([^/]+\.)?workflow\.yaml$/.test(e.document.uri.path)) {
          this.scheduleRefresh();
        }
      }),
      vscode.workspace.onDidSaveTextDocument(() => this.scheduleRefresh()),
    );
  }

  scheduleRefresh(delay = 400): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.refresh(), delay);
  }

  async refresh(): Promise<ReachNode[]> {
    try {
      const resp = await this.server.requestWorkflows<ReachResponse>(Requests.reach, {});
      this.last = resp ?? undefined;
      this.roots = reachTree(resp);
      const sentence = resp?.sentence ?? REACH_SENTENCE;
      this.view.message = this.server.state === 'running' ? sentence : `${sentence} (The language server is not running: see the Stepsmith output.)`;
    } catch (e) {
      this.server.output.warn(`reach: ${(e as Error).message}`);
    }
    this.changed.fire(undefined);
    this.refreshedEmitter.fire(this.roots);
    return this.roots;
  }

  getTreeItem(n: ReachNode): vscode.TreeItem {
    const item = new vscode.TreeItem(
      n.label,
      n.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : n.kind === 'workflow'
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = n.id;
    item.description = n.description;
    item.tooltip = n.tooltip;
    item.iconPath = new vscode.ThemeIcon(n.icon);
    item.contextValue = `stepsmith.reach.${n.kind}`;
    if (n.location) {
      item.command = {
        command: 'vscode.open',
        title: 'Open',
        arguments: [vscode.Uri.parse(n.location.uri), { selection: toRange(n.location.range), preview: true } as vscode.TextDocumentShowOptions],
      };
    }
    return item;
  }

  getChildren(n?: ReachNode): ReachNode[] {
    return n ? n.children : this.roots;
  }

  getParent(n: ReachNode): ReachNode | undefined {
    const find = (nodes: ReachNode[], parent?: ReachNode): ReachNode | undefined => {
      for (const c of nodes) {
        if (c.id === n.id) {
          return parent;
        }
        const f = find(c.children, c);
        if (f) {
          return f;
        }
      }
      return undefined;
    };
    return find(this.roots);
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.disposables.forEach((d) => d.dispose());
  }
}
