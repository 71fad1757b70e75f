// The language-model tools agent mode calls: the same capabilities as `stepsmith mcp`, answered
// by the running language server (`stepsmith/agentTool`, the very use cases of runner/mcp), so
// no second process. The result is the tool's structured JSON. An untrusted workspace gets the
// read-only tools only; the others are registered once the workspace is trusted.
import * as vscode from 'vscode';
import { AgentToolSpec, toolsFor } from './agentTools';
import { Requests } from './protocol';

interface Requester { request<R>(method: string, params?: unknown): Promise<R | undefined> }

class AgentTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(private readonly spec: AgentToolSpec, private readonly server: Requester) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>) {
    if (!this.spec.confirm) {
      return { invocationMessage: `stepsmith: ${this.spec.tool}` };
    }
    return {
      invocationMessage: `stepsmith: ${this.spec.tool}`,
      confirmationMessages: { title: `stepsmith ${this.spec.tool}`, message: new vscode.MarkdownString(this.spec.confirm(options.input ?? {})) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>): Promise<vscode.LanguageModelToolResult> {
    const result = await this.server.request<unknown>(Requests.agentTool, { tool: this.spec.tool, input: JSON.stringify(options.input ?? {}) });
    if (result === undefined) {
      throw new Error('the stepsmith language server is not running');
    }
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(result))]);
  }
}

/** Registers the tools this workspace may have now, and the rest when it becomes trusted. */
export function registerAgentTools(context: vscode.ExtensionContext, server: Requester): void {
  if (!vscode.lm || typeof vscode.lm.registerTool !== 'function') {
    return; // an editor without the language-model tools API
  }
  const registered = new Set<string>();
  const register = () => {
    for (const spec of toolsFor(vscode.workspace.isTrusted)) {
      if (!registered.has(spec.name)) {
        registered.add(spec.name);
        context.subscriptions.push(vscode.lm.registerTool(spec.name, new AgentTool(spec, server)));
      }
    }
  };
  register();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(register));
}
