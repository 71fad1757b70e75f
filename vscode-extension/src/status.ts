// Status bar item: is the sandbox (bubblewrap) available? Clicking explains when it is not.

import * as vscode from 'vscode';
import { Requests, StatusResponse } from './protocol';
import { ServerManager } from './server';

export class SandboxStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  last: StatusResponse | undefined;
  private disposables: vscode.Disposable[] = [];

  constructor(private readonly server: ServerManager) {
    this.item = vscode.window.createStatusBarItem('stepsmith.sandbox', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Stepsmith sandbox';
    this.item.command = 'stepsmith.explainSandbox';
    this.disposables.push(
      this.item,
      server.onDidChangeState(() => void this.update()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.update()),
    );
    void this.update();
  }

  async update(): Promise<void> {
    const s = this.server.state;
    if (s === 'starting' || s === 'stopped') {
      this.item.text = '$(sync~spin) Stepsmith';
      this.item.tooltip = 'Starting the Stepsmith language server…';
      this.item.backgroundColor = undefined;
    } else if (s === 'failed') {
      this.item.text = '$(error) Stepsmith';
      this.item.tooltip = this.server.lastProblem?.message ?? 'The Stepsmith language server is not running. Click for details.';
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else {
      try {
        this.last = await this.server.request<StatusResponse>(Requests.status, {});
      } catch (e) {
        this.server.output.warn(`status: ${(e as Error).message}`);
      }
      const ok = !!this.last?.sandboxAvailable;
      const restricted = !vscode.workspace.isTrusted;
      this.item.text = restricted ? '$(workspace-untrusted) Sandbox: restricted' : ok ? '$(shield) Sandbox ready' : '$(warning) Sandbox unavailable';
      this.item.tooltip = restricted
        ? 'Untrusted workspace: Stepsmith shows diagnostics and reach only; nothing is executed.'
        : ok
          ? `Steps run in a fresh bubblewrap sandbox (stepsmith ${this.last?.version ?? ''}).`
          : `Fixtures cannot run: ${this.last?.reason || 'the sandbox is unavailable'}. Click for the fix.`;
      this.item.backgroundColor = ok || restricted ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    }
    this.item.show();
  }

  async explain(): Promise<void> {
    if (this.server.state === 'failed') {
      const p = this.server.lastProblem;
      const c = await vscode.window.showErrorMessage(p ? `${p.message} ${p.fix}` : 'The Stepsmith language server is not running.', 'Show Log', 'Restart Server');
      if (c === 'Show Log') {
        this.server.output.show();
      } else if (c === 'Restart Server') {
        await vscode.commands.executeCommand('stepsmith.restartServer');
      }
      return;
    }
    if (!vscode.workspace.isTrusted) {
      const c = await vscode.window.showInformationMessage(
        'This workspace is not trusted, so Stepsmith only reports diagnostics and reach: no step, fixture or recording runs.',
        'Manage Workspace Trust',
      );
      if (c) {
        await vscode.commands.executeCommand('workbench.trust.manage');
      }
      return;
    }
    await this.update();
    if (this.last?.sandboxAvailable) {
      void vscode.window.showInformationMessage(
        'The sandbox is available: every fixture runs in its own fresh bubblewrap sandbox with no network, no secrets and hard limits.',
      );
      return;
    }
    const reason = this.last?.reason || 'the sandbox is unavailable';
    const c = await vscode.window.showWarningMessage(
      `Stepsmith cannot run steps: ${reason}. There is no unsandboxed fallback. On Debian/Ubuntu install bubblewrap (\`sudo apt-get install bubblewrap\`), then restart the server.`,
      { modal: false },
      'Copy Install Command',
      'Restart Server',
    );
    if (c === 'Copy Install Command') {
      await vscode.env.clipboard.writeText('sudo apt-get install -y bubblewrap');
    } else if (c === 'Restart Server') {
      await vscode.commands.executeCommand('stepsmith.restartServer');
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
