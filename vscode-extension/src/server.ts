// Starting, restarting and stopping the language server (python -m stepsmith.server).

import * as cp from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  Diagnostic as LcDiagnostic,
  DocumentDiagnosticRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  Trace,
} from 'vscode-languageclient/node';
import {
  chooseInterpreter,
  InterpreterChoice,
  LaunchPlan,
  LaunchProblem,
  parseProbeOutput,
  planLaunch,
  probeSpawn,
  ProbeResult,
  serverSpawn,
  substituteVariables,
  whichOnPath,
} from './interpreter';
import { documentSelector, folderKey, MANIFEST_GLOBS } from './manifests';
import { Notifications, FixtureResultsNotification } from './protocol';
import {
  EXECUTING_COMMANDS,
  filterSchemaLevel,
  isManifestUriPath,
  leaveDescriptionsToYamlExtension,
  leaveSchemaErrorsToYamlExtension,
  withoutSchemaDescription,
  needsRestart,
  readSettings,
  serverSettings,
  Settings,
} from './settings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';

const diagnosticsKey = (ds: readonly { range?: { start: { line: number } }; code?: unknown; message?: string }[]) =>
  ds.map((d) => `${d.range?.start.line}:${String((d.code as any)?.value ?? d.code)}:${d.message}`).join('\n');

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  state: ServerState = 'stopped';
  lastProblem: LaunchProblem | undefined;
  lastPlan: LaunchPlan | undefined;
  /** the interpreter chosen at the last start, and where it came from */
  lastChoice: InterpreterChoice | undefined;
  private settings: Settings;
  private manifests: string[] = [];
  /** the manifests a restart already asked for will serve: a second event of the same change
   * (the manifest's own and its new folder's, 300 ms apart) must not restart again */
  private restartFor: string[] | undefined;
  /** the manifests whose folders the running server serves (tests wait on a restart with it) */
  get servedManifests(): readonly string[] {
    return this.manifests;
  }
  private disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  /** Our last manifest diagnostics, unfiltered, while some are left to the YAML extension. */
  private readonly manifestDiagnostics = new Map<string, { mode: 'push' | 'pull'; raw: vscode.Diagnostic[]; shown: string }>();
  private restarting: Promise<void> | undefined;
  /** restarts done since activation (tests count them: one change of the folders, one restart) */
  restarts = 0;
  private pendingRestart = false;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly resultsEmitter = new vscode.EventEmitter<FixtureResultsNotification>();
  /** stepsmith/fixtureResults from the server (runs on save/type and command runs) */
  readonly onFixtureResults = this.resultsEmitter.event;
  private readonly manifestEmitter = new vscode.EventEmitter<vscode.Uri>();
  /** a manifest was created, changed on disk or deleted */
  readonly onManifestChanged = this.manifestEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.settings = this.currentSettings();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.output.info('workspace trusted: restarting the server with execution allowed');
        void this.restart('workspace trusted');
      }),
    );
    for (const glob of MANIFEST_GLOBS) {
      const w = vscode.workspace.createFileSystemWatcher(glob);
      w.onDidCreate((u) => this.onManifestSetChanged(u));
      w.onDidDelete((u) => this.onManifestSetChanged(u));
      w.onDidChange((u) => this.manifestEmitter.fire(u));
      this.disposables.push(w);
    }
    // A folder comes and goes as one event: VS Code reports no children of a deleted folder,
    // and a folder created with its files at once (git checkout, cp -r, `stepsmith init`)
    // can have them created before the watcher sees into it. The manifest globs above then
    // miss a workflow; the folder's own event makes us look again.
    const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    folders.onDidDelete((u) => {
      if (this.manifests.some((m) => m.startsWith(u.fsPath + path.sep))) {
        void this.onManifestSetChanged(u);
      }
    });
    folders.onDidCreate((u) => {
      let dir = false;
      try {
        dir = fs.statSync(u.fsPath).isDirectory();
      } catch {
        return; // gone again
      }
      if (dir) {
        this.lookAgainSoon(u);
      }
    });
    this.disposables.push(folders, this.stateEmitter, this.resultsEmitter, this.manifestEmitter);
    this.watchPythonExtension();
  }

  private currentSettings(): Settings {
    return readSettings(vscode.workspace.getConfiguration('stepsmith'));
  }

  /** what the server is told right now (initializationOptions / workspace/configuration) */
  serverSettingsNow() {
    return serverSettings(this.settings, this.trusted);
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  private setState(s: ServerState): void {
    this.state = s;
    this.stateEmitter.fire(s);
  }

  private onConfigChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('stepsmith') && !e.affectsConfiguration('yaml.validate')) {
      return;
    }
    const before = this.settings;
    this.settings = this.currentSettings();
    if (needsRestart(before, this.settings)) {
      this.output.info('interpreter settings changed: restarting the server');
      void this.restart('settings changed');
    } else if (this.client && this.state === 'running') {
      // everything else applies without a restart (PROTOCOL.md: didChangeConfiguration)
      void this.client.sendNotification('workspace/didChangeConfiguration', {
        settings: { stepsmith: serverSettings(this.settings, this.trusted) },
      });
      if (before.traceServer !== this.settings.traceServer) {
        void this.client.setTrace(Trace.fromString(this.settings.traceServer));
      }
    }
  }

  private lookAgainTimer: NodeJS.Timeout | undefined;

  /** One search for manifests once a burst of created folders is over. */
  private lookAgainSoon(uri: vscode.Uri): void {
    clearTimeout(this.lookAgainTimer);
    this.lookAgainTimer = setTimeout(() => void this.onManifestSetChanged(uri), 300);
  }

  private async onManifestSetChanged(uri: vscode.Uri): Promise<void> {
    this.manifestEmitter.fire(uri);
    const found = await this.findManifests();
    if (folderKey(found) !== folderKey(this.restartFor ?? this.manifests)) {
      this.restartFor = found;
      this.output.info('the set of workflow folders changed: restarting so Python files there are served');
      void this.restart('workflow folders changed');
    }
  }

  private watchPythonExtension(): void {
    const ext = vscode.extensions.getExtension('ms-python.python');
    if (!ext) {
      return;
    }
    const hook = () => {
      const api = ext.exports as any;
      const ev = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (typeof ev === 'function') {
        this.disposables.push(
          ev(() => {
            if (this.settings.interpreter.length === 0) {
              this.output.info('the Python extension changed the active interpreter: restarting');
              void this.restart('interpreter changed');
            }
          }),
        );
      }
    };
    if (ext.isActive) {
      hook();
    } else {
      ext.activate().then(hook, () => undefined);
    }
  }

  async findManifests(): Promise<string[]> {
    const uris = (
      await Promise.all(MANIFEST_GLOBS.map((g) => vscode.workspace.findFiles(g, '{**/node_modules/**,**/.stepsmith/**,**/.git/**}')))
    ).flat();
    return uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
  }

  /** The Python extension's active interpreter, through its public API; never required. */
  private async pythonFromExtension(resource: vscode.Uri | undefined): Promise<string[] | undefined> {
    const ext = vscode.extensions.getExtension('ms-python.python');
    if (!ext) {
      return undefined;
    }
    if (!ext.isActive) {
      await ext.activate();
    }
    const api = ext.exports as any;
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath && envs?.resolveEnvironment) {
      const active = envs.getActiveEnvironmentPath(resource);
      const resolved = await envs.resolveEnvironment(active);
      const exe = resolved?.executable?.uri?.fsPath;
      return exe ? [exe] : undefined;
    }
    // older API: settings.getExecutionDetails
    const details = api?.settings?.getExecutionDetails?.(resource);
    return details?.execCommand;
  }

  /** Where every Python we start runs: our own folder, never the workspace (issue 18, item 1). */
  private startFolder(): string {
    return this.context.extensionPath;
  }

  private probe(choice: InterpreterChoice): Promise<ProbeResult | Error> {
    let spec;
    try {
      spec = probeSpawn(choice, this.startFolder(), { ...process.env, ...this.settings.serverEnv });
    } catch (e) {
      return Promise.resolve(e as Error);
    }
    return new Promise((resolve) => {
      cp.execFile(spec.command, spec.args, { timeout: 30000, cwd: spec.cwd, env: spec.env }, (err, stdout, stderr) => {
        try {
          resolve(parseProbeOutput(String(stdout)));
        } catch (e) {
          resolve(err ? new Error(`${err.message}${stderr ? `: ${String(stderr).trim().slice(0, 300)}` : ''}`) : (e as Error));
        }
      });
    });
  }

  bundledLibs(): string | undefined {
    const p = path.join(this.context.extensionPath, 'bundled', 'libs');
    return fs.existsSync(path.join(p, 'stepsmith')) ? p : undefined;
  }

  /** Resolves the interpreter and decides how to launch; exported for tests and the status item. */
  async resolveLaunch(): Promise<LaunchPlan | LaunchProblem> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const setting = substituteVariables(this.settings.interpreter, {
      workspaceFolder: folder?.uri.fsPath,
      userHome: os.homedir(),
      env: process.env,
    });
    const choice = await chooseInterpreter({
      setting,
      pythonExtension: () => this.pythonFromExtension(folder?.uri),
      which: (name) => which(name),
    });
    this.lastChoice = choice;
    const probe = choice ? await this.probe(choice) : undefined;
    if (choice) {
      this.output.info(`interpreter: ${choice.command.join(' ')} (from ${choice.origin})`);
    }
    return planLaunch(choice, probe, this.settings.importStrategy, this.bundledLibs(), process.env.PYTHONPATH);
  }

  async start(): Promise<void> {
    if (this.client) {
      return;
    }
    this.setState('starting');
    this.lastProblem = undefined;
    const plan = await this.resolveLaunch();
    if (!plan.ok) {
      this.lastProblem = plan;
      this.lastPlan = undefined;
      this.output.error(`${plan.message} Fix: ${plan.fix}`);
      this.setState('failed');
      void this.notifyProblem(plan);
      return;
    }
    this.lastPlan = plan;
    this.output.info(`starting the language server: ${plan.describe}`);
    this.manifests = await this.findManifests();
    this.restartFor = undefined;
    const spec = serverSpawn(plan, this.startFolder(), { ...process.env, ...this.settings.serverEnv });
    const serverOptions: ServerOptions = {
      command: spec.command,
      args: spec.args,
      options: { env: spec.env, cwd: spec.cwd },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(this.manifests),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: { settings: serverSettings(this.settings, this.trusted) },
      synchronize: {
        fileEvents: [
          vscode.workspace.createFileSystemWatcher('**/workflow.yaml'),
          vscode.workspace.createFileSystemWatcher('**/*.workflow.yaml'),
          vscode.workspace.createFileSystemWatcher('**/fixtures/**/*.json'),
          vscode.workspace.createFileSystemWatcher('**/steps/**/*.py'),
        ],
      },
      middleware: {
        workspace: {
          // answer workspace/configuration with what this window allows (untrusted: nothing runs)
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) {
              return result;
            }
            return params.items.map((item, i) =>
              item.section === 'stepsmith' ? { ...(result[i] ?? {}), ...serverSettings(this.settings, this.trusted) } : result[i],
            );
          },
        },
        executeCommand: async (command, args, next) => {
          if (EXECUTING_COMMANDS.has(command) && !vscode.workspace.isTrusted) {
            void vscode.window.showWarningMessage('Stepsmith runs nothing in an untrusted workspace. Trust the workspace to run or record fixtures.', 'Manage Workspace Trust').then((c) => {
              if (c) {
                void vscode.commands.executeCommand('workbench.trust.manage');
              }
            });
            return undefined;
          }
          return next(command, args);
        },
        handleDiagnostics: (uri, diagnostics, next) => next(uri, this.filterDiagnostics(uri, diagnostics, 'push')),
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          return hover ? this.filterHover(document.uri, hover) : hover;
        },
        provideDiagnostics: async (doc, previousResultId, token, next) => {
          const report = await next(doc, previousResultId, token);
          const uri = doc instanceof vscode.Uri ? doc : doc.uri;
          if (report && (report as any).kind === 'full' && Array.isArray((report as any).items)) {
            (report as any).items = this.filterDiagnostics(uri, (report as any).items, 'pull');
          } else if (report && (report as any).kind === 'unchanged' && this.manifestDiagnostics.has(`pull ${uri.toString()}`)) {
            // unchanged for the server, but what the YAML extension shows may have changed
            const raw = this.manifestDiagnostics.get(`pull ${uri.toString()}`)!.raw;
            return { kind: 'full', resultId: (report as any).resultId, items: this.filterDiagnostics(uri, raw, 'pull') } as any;
          }
          return report;
        },
      },
    };
    const client = new LanguageClient('stepsmith', 'Stepsmith', serverOptions, clientOptions);
    this.client = client;
    this.manifestDiagnostics.clear();
    this.clientDisposables.push(
      vscode.languages.onDidChangeDiagnostics((e) => this.refilterManifests(e.uris)),
      client.onDidChangeState((e) => {
        if (e.newState === State.Stopped && this.client === client && this.state === 'running') {
          this.setState('failed');
        }
      }),
    );
    try {
      await client.start();
      await client.setTrace(Trace.fromString(this.settings.traceServer));
      this.clientDisposables.push(
        client.onNotification(Notifications.fixtureResults, (p: FixtureResultsNotification) => this.resultsEmitter.fire(p)),
      );
      this.setState('running');
      this.output.info('language server running');
    } catch (e) {
      this.output.error(`the language server failed to start: ${(e as Error).message}`);
      this.lastProblem = {
        ok: false,
        kind: 'broken',
        message: `The Stepsmith language server failed to start: ${(e as Error).message}`,
        fix: 'See the "Stepsmith" output channel for its log.',
      };
      this.setState('failed');
      void this.notifyProblem(this.lastProblem);
    }
  }

  /** Drop our schema-level manifest errors when the YAML extension reports them (see README). */
  private filterDiagnostics<T extends vscode.Diagnostic | LcDiagnostic>(uri: vscode.Uri, diagnostics: T[], mode?: 'push' | 'pull'): T[] {
    if (!isManifestUriPath(uri.path)) {
      return diagnostics;
    }
    const yamlExt = vscode.extensions.getExtension('redhat.vscode-yaml');
    const validate = vscode.workspace.getConfiguration('yaml', uri).get<boolean>('validate');
    const leave = leaveSchemaErrorsToYamlExtension(this.settings, !!yamlExt?.isActive, validate);
    const others = leave ? vscode.languages.getDiagnostics(uri).filter((d) => d.source !== 'stepsmith') : [];
    const shown = filterSchemaLevel(uri.path, diagnostics, leave, others);
    if (mode) { // remembered, to filter again when the YAML extension's syntax errors change
      this.manifestDiagnostics.set(`${mode} ${uri.toString()}`, { mode, raw: diagnostics as vscode.Diagnostic[], shown: diagnosticsKey(shown) });
    }
    return shown;
  }

  /** Other diagnostics of manifests changed: ours are filtered again (push: set; pull: re-pull). */
  private refilterManifests(uris: readonly vscode.Uri[]): void {
    const client = this.client;
    for (const [uri, mode] of uris.flatMap((u) => [[u, 'push'], [u, 'pull']] as const)) {
      const last = client && this.manifestDiagnostics.get(`${mode} ${uri.toString()}`);
      if (!last) {
        continue;
      }
      const shown = this.filterDiagnostics(uri, last.raw);
      if (diagnosticsKey(shown) === last.shown) {
        continue;
      }
      last.shown = diagnosticsKey(shown);
      if (last.mode === 'push') {
        client.diagnostics?.set(uri, shown);
      } else {
        // the pull model's own collection (vscode-languageclient 9 keeps it on the provider's
        // requestor); the next pull, full or unchanged, goes through our middleware again
        const feature = client.getFeature(DocumentDiagnosticRequest.method) as unknown as
          { getAllProviders?: () => Iterable<{ diagnosticRequestor?: { diagnostics?: vscode.DiagnosticCollection } }> } | undefined;
        // private API (test/unit/upstream.test.ts pins its shape): said in the log if it goes
        const providers = feature?.getAllProviders?.();
        if (!providers) {
          this.output.appendLine('vscode-languageclient has no getAllProviders: pulled manifest diagnostics not re-filtered');
          continue;
        }
        for (const provider of providers) {
          const collection = provider.diagnosticRequestor?.diagnostics;
          if (collection?.has(uri)) {
            collection.set(uri, shown);
          }
        }
      }
    }
  }

  /** Drop a key's schema description from our manifest hover when the YAML extension shows it. */
  private filterHover(uri: vscode.Uri, hover: vscode.Hover): vscode.Hover | undefined {
    const yamlExt = vscode.extensions.getExtension('redhat.vscode-yaml');
    const hoverOn = vscode.workspace.getConfiguration('yaml', uri).get<boolean>('hover');
    if (!isManifestUriPath(uri.path) || !leaveDescriptionsToYamlExtension(this.settings, !!yamlExt?.isActive, hoverOn)) {
      return hover;
    }
    const parts = hover.contents
      .map((c) => withoutSchemaDescription(typeof c === 'string' ? c : c.value))
      .filter((t): t is string => t !== undefined && t.trim() !== '');
    return parts.length ? new vscode.Hover(parts.map((t) => new vscode.MarkdownString(t)), hover.range) : undefined;
  }

  private async notifyProblem(p: LaunchProblem): Promise<void> {
    const actions = ['Open Settings', 'Show Log'];
    const choice = await vscode.window.showErrorMessage(`${p.message} ${p.fix}`, ...actions);
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'stepsmith.interpreter');
    } else if (choice === 'Show Log') {
      this.output.show();
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientDisposables.forEach((d) => d.dispose());
    this.clientDisposables = [];
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.output.warn(`stopping the server: ${(e as Error).message}`);
      }
      try {
        await client.dispose(2000);
      } catch {
        /* already gone */
      }
    }
    this.setState('stopped');
  }

  /** Serialised: concurrent restart requests collapse into one more restart. */
  restart(reason: string): Promise<void> {
    if (this.restarting) {
      this.pendingRestart = true;
      return this.restarting;
    }
    this.restarting = (async () => {
      do {
        this.pendingRestart = false;
        this.output.info(`restarting the language server (${reason})`);
        this.restarts += 1;
        await this.stop();
        this.settings = this.currentSettings();
        await this.start();
      } while (this.pendingRestart);
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  /** Sends a custom request once the server runs; undefined when it does not. */
  async request<R>(method: string, params: unknown = {}): Promise<R | undefined> {
    if (this.restarting) {
      await this.restarting;
    }
    const client = this.client;
    if (!client || this.state !== 'running') {
      return undefined;
    }
    return client.sendRequest<R>(method, params);
  }

  /**
   * A workflow listing (`stepsmith/reach`, `stepsmith/fixtures`). The server itself waits for
   * the workspace to settle before answering (PROTOCOL.md), and answers a failure as a
   * JSON-RPC error: one request, no polling.
   */
  async requestWorkflows<R extends { workflows?: unknown[] }>(method: string, params: unknown = {}): Promise<R | undefined> {
    return this.request<R>(method, params);
  }

  async executeServerCommand<R>(command: string, args: unknown[]): Promise<R | undefined> {
    if (EXECUTING_COMMANDS.has(command) && !vscode.workspace.isTrusted) {
      throw new Error('Stepsmith runs nothing in an untrusted workspace.');
    }
    return this.request<R>('workspace/executeCommand', { command, arguments: args });
  }

  dispose(): void {
    clearTimeout(this.lookAgainTimer);
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
  }
}

/** PATH lookup (no shell): the first executable `name` in an absolute PATH folder. */
export function which(name: string): Promise<string | undefined> {
  return whichOnPath(name, process.env.PATH);
}
