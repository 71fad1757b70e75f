// Entry point. Activation: a workspace containing workflow.yaml / *.workflow.yaml (package.json).

import * as vscode from 'vscode';
import { registerAgentTools } from './lmTools';
import { registerCommands } from './commands';
import { registerMutants } from './mutants';
import { PendingProvider, registerPendingCommands } from './pendingView';
import { PythonStatus } from './pythonStatus';
import { ReachProvider } from './reachView';
import { ServerManager } from './server';
import { SandboxStatus } from './status';
import { FixtureTests } from './testing';

/** What activate() returns: used by the integration tests (and any extension that wants it). */
export interface StepsmithApi {
  server: ServerManager;
  reach: ReachProvider;
  tests: FixtureTests;
  pending: PendingProvider;
  status: SandboxStatus;
  /** the active workflow's Python in the status bar */
  python: PythonStatus;
  /** resolves once the first server start has finished (running or failed) */
  ready: Promise<void>;
}

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<StepsmithApi> {
  const output = vscode.window.createOutputChannel('Stepsmith', { log: true });
  context.subscriptions.push(output);
  output.info(`Stepsmith ${context.extension.packageJSON.version} activating (workspace trusted: ${vscode.workspace.isTrusted})`);
  manager = new ServerManager(context, output);
  const reach = new ReachProvider(manager);
  const tests = new FixtureTests(manager);
  const status = new SandboxStatus(manager);
  const pending = new PendingProvider(manager);
  const python = new PythonStatus(manager);
  context.subscriptions.push(manager, reach, tests, status, pending, python);
  registerCommands(context, manager, reach, tests, status);
  registerPendingCommands(context, pending);
  registerAgentTools(context, manager);
  registerMutants(context, manager);
  await vscode.commands.executeCommand('setContext', 'stepsmith.active', true);
  const ready = manager.start();
  return { server: manager, reach, tests, pending, status, python, ready };
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
