// Status bar item: which Python the active editor's workflow is checked and run on, or that the
// Python it pins is not installed (the server says which: stepsmith/python).

import * as vscode from 'vscode';
import { PythonResponse, Requests } from './protocol';
import { pythonLabel } from './pythonModel';
import { ServerManager } from './server';

export class PythonStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  last: PythonResponse | null = null;
  private disposables: vscode.Disposable[] = [];
  private asked = 0;

  constructor(private readonly server: ServerManager) {
    this.item = vscode.window.createStatusBarItem('stepsmith.python', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Stepsmith workflow Python';
    this.disposables.push(
      this.item,
      server.onDidChangeState(() => void this.update()),
      vscode.window.onDidChangeActiveTextEditor(() => void this.update()),
      // a manifest's check (SM501, a new pin) changes what the server answers
      vscode.languages.onDidChangeDiagnostics(() => void this.update()),
    );
    void this.update();
  }

  async update(): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    const ask = ++this.asked;
    let resp: PythonResponse | null = null;
    if (doc && doc.uri.scheme === 'file' && this.server.state === 'running') {
      try {
        resp = (await this.server.request<PythonResponse | null>(Requests.python, { uri: doc.uri.toString() })) ?? null;
      } catch (e) {
        this.server.output.warn(`python: ${(e as Error).message}`);
      }
    }
    if (ask !== this.asked) {
      return; // a newer update answers
    }
    this.last = resp;
    const label = pythonLabel(resp);
    if (!label.visible) {
      this.item.hide();
      return;
    }
    this.item.text = label.text;
    this.item.tooltip = label.tooltip;
    this.item.backgroundColor = label.missing ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
