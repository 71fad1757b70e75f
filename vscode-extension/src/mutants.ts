// Fixture strength in the editor: "Stepsmith: Show Mutants That Survive" asks the server for
// `stepsmith/mutants` of the active step file, in the background with a cancellable
// progress notification, then lists the survivors (picking one reveals it). The survivors'
// squiggles and the "N mutants survive" lens come from the server itself.

import * as vscode from 'vscode';
import { survivorItems, summaryLine } from './mutantsModel';
import { Mutants, MutantsResponse } from './protocol';
import type { ServerManager } from './server';

export function registerMutants(ctx: vscode.ExtensionContext, server: ServerManager): void {
  ctx.subscriptions.push(vscode.commands.registerCommand('stepsmith.showMutants', async (uri?: string) => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Stepsmith runs nothing in an untrusted workspace.');
      return undefined;
    }
    const target = uri ?? vscode.window.activeTextEditor?.document.uri.toString();
    if (!target) {
      void vscode.window.showWarningMessage('Open a step file (or a workflow manifest) first.');
      return undefined;
    }
    const resp = await vscode.window.withProgress({
      location: vscode.ProgressLocation.Notification, title: 'Stepsmith: judging mutants', cancellable: true,
    }, async (_progress, token) => {
      const client = server.client;
      if (!client) {
        return undefined;
      }
      try {
        return await client.sendRequest<MutantsResponse>(Mutants.request, { uri: target }, token);
      } catch (err) {
        if (token.isCancellationRequested) {
          return { uri: target, mutants: [], cancelled: true } as MutantsResponse;
        }
        throw err;
      }
    });
    const items = survivorItems(resp);
    void vscode.window.showInformationMessage(summaryLine(resp));
    if (items.length) {
      const pick = await vscode.window.showQuickPick(items, { title: 'Mutants no fixture notices', matchOnDetail: true });
      const r = pick?.record.range;
      if (pick && r) {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(pick.record.uri));
        const range = new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
        await vscode.window.showTextDocument(doc, { selection: range });
      }
    }
    return resp;
  }));
}
