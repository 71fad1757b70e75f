import * as vscode from 'vscode';
import { LspRange } from './protocol';

export function toRange(r: LspRange | null | undefined): vscode.Range {
  if (!r) {
    return new vscode.Range(0, 0, 0, 0);
  }
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}
