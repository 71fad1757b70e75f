// Reading the "stepsmith" settings into one typed object, deciding what a change needs (restart
// vs. just telling the server), and what the server is told. Pure: no `vscode` import.

import type { ImportStrategy } from './interpreter';

export interface Settings {
  interpreter: string[];
  importStrategy: ImportStrategy;
  serverEnv: Record<string, string>;
  runOnSave: boolean;
  runOnType: boolean;
  runOnTypeDelayMs: number;
  coverageDiagnostics: boolean;
  maxFileSize: number;
  inlayHints: boolean;
  manifestSchemaDiagnostics: 'auto' | 'stepsmith';
  traceServer: 'off' | 'messages' | 'verbose';
  ruleDocsUrl: string; // where the rule pages are published (https only); '' = no links
}

export const DEFAULTS: Settings = {
  interpreter: [],
  importStrategy: 'auto',
  serverEnv: {},
  runOnSave: true,
  runOnType: true, // on the unsaved buffer, in a trusted workspace only (serverSettings)
  runOnTypeDelayMs: 300,
  coverageDiagnostics: true,
  maxFileSize: 2000000,
  inlayHints: true,
  manifestSchemaDiagnostics: 'auto',
  traceServer: 'off',
  ruleDocsUrl: '',
};

/** Anything with `get(key)` like vscode.WorkspaceConfiguration for section "stepsmith". */
export interface ConfigLike {
  get<T>(key: string): T | undefined;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function int(value: unknown, fallback: number, min: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? Math.floor(value) : fallback;
}

/** Reads and normalises; wrong types fall back to the defaults instead of throwing. */
export function readSettings(cfg: ConfigLike): Settings {
  const rawInterp = cfg.get<unknown>('interpreter');
  let interpreter: string[] = [];
  if (Array.isArray(rawInterp)) {
    interpreter = rawInterp.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  } else if (typeof rawInterp === 'string' && rawInterp.trim() !== '') {
    interpreter = [rawInterp]; // tolerate the single-string form
  }
  const rawEnv = cfg.get<unknown>('serverEnv');
  const serverEnv: Record<string, string> = {};
  if (rawEnv && typeof rawEnv === 'object' && !Array.isArray(rawEnv)) {
    for (const [k, v] of Object.entries(rawEnv as Record<string, unknown>)) {
      if (typeof v === 'string') {
        serverEnv[k] = v;
      }
    }
  }
  return {
    interpreter,
    importStrategy: oneOf(cfg.get('importStrategy'), ['auto', 'fromEnvironment', 'useBundled'] as const, DEFAULTS.importStrategy),
    serverEnv,
    runOnSave: bool(cfg.get('runOnSave'), DEFAULTS.runOnSave),
    runOnType: bool(cfg.get('runOnType'), DEFAULTS.runOnType),
    runOnTypeDelayMs: int(cfg.get('runOnTypeDelayMs'), DEFAULTS.runOnTypeDelayMs, 0),
    coverageDiagnostics: bool(cfg.get('coverageDiagnostics'), DEFAULTS.coverageDiagnostics),
    maxFileSize: int(cfg.get('maxFileSize'), DEFAULTS.maxFileSize, 1),
    inlayHints: bool(cfg.get('inlayHints'), DEFAULTS.inlayHints),
    manifestSchemaDiagnostics: oneOf(cfg.get('manifestSchemaDiagnostics'), ['auto', 'stepsmith'] as const, DEFAULTS.manifestSchemaDiagnostics),
    traceServer: oneOf(cfg.get('trace.server'), ['off', 'messages', 'verbose'] as const, DEFAULTS.traceServer),
    ruleDocsUrl: https(cfg.get('ruleDocsUrl')),
  };
}

/** An https location, else '' (a diagnostic then links nowhere rather than to a file). */
function https(value: unknown): string {
  return typeof value === 'string' && value.startsWith('https://') && !/\s/.test(value) ? value : '';
}

/** Settings that change how the server process is started: a change needs a restart. */
const RESTART_KEYS: (keyof Settings)[] = ['interpreter', 'importStrategy', 'serverEnv'];

export function needsRestart(before: Settings, after: Settings): boolean {
  return RESTART_KEYS.some((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

/**
 * What the server gets (initializationOptions.settings and workspace/didChangeConfiguration).
 * In an untrusted workspace nothing may execute: runOnSave/runOnType are forced off and
 * `trusted: false` tells the server to refuse run/record commands too.
 */
export interface ServerSettings {
  runOnSave: boolean;
  runOnType: boolean;
  runOnTypeDelayMs: number;
  coverageDiagnostics: boolean;
  maxFileSize: number;
  inlayHints: boolean;
  trusted: boolean;
  ruleDocsUrl?: string;
}

export function serverSettings(s: Settings, trusted: boolean): ServerSettings {
  return {
    runOnSave: trusted && s.runOnSave,
    runOnType: trusted && s.runOnType,
    runOnTypeDelayMs: s.runOnTypeDelayMs,
    coverageDiagnostics: s.coverageDiagnostics,
    maxFileSize: s.maxFileSize,
    inlayHints: s.inlayHints,
    trusted,
    ...(s.ruleDocsUrl ? { ruleDocsUrl: s.ruleDocsUrl } : {}),
  };
}

/** Server command ids that execute code (refused client-side in untrusted workspaces). */
export const EXECUTING_COMMANDS = new Set(['stepsmith.runStepFixtures', 'stepsmith.runFixture', 'stepsmith.recordFixture', 'stepsmith.mutants']);

/**
 * Whether problems the manifest schema expresses are left to the YAML extension (it validates
 * against the same schema, so it reports them too). Only when the user leaves it on "auto", the
 * YAML extension is active, and its validation is on.
 */
export function leaveSchemaErrorsToYamlExtension(
  s: Settings,
  yamlExtensionActive: boolean,
  yamlValidateSetting: boolean | undefined,
): boolean {
  return s.manifestSchemaDiagnostics === 'auto' && yamlExtensionActive && yamlValidateSetting !== false;
}

/** Whether the YAML extension shows the schema's key descriptions on hover (then ours would repeat them). */
export function leaveDescriptionsToYamlExtension(
  s: Settings,
  yamlExtensionActive: boolean,
  yamlHoverSetting: boolean | undefined,
): boolean {
  return s.manifestSchemaDiagnostics === 'auto' && yamlExtensionActive && yamlHoverSetting !== false;
}

/** A manifest path (workflow.yaml or *.workflow.yaml)? Works on URI paths and file paths. */
export function isManifestUriPath(p: string): boolean {
  return /(^|\/)([^/]+\.)?workflow\.yaml$/.test(p);
}

/** The rule code of a diagnostic (`code` may be a string, a number or `{value, target}`). */
export function diagnosticCode(code: unknown): string {
  if (code && typeof code === 'object' && 'value' in (code as Record<string, unknown>)) {
    return String((code as { value: unknown }).value);
  }
  return code === undefined || code === null ? '' : String(code);
}

/**
 * A diagnostic the manifest schema expresses: the server marks each one it found through the
 * model (`data.schema`), which agrees with the schema (tests/reference/test_schema_model_agreement.py).
 * Anything else (YAML syntax as libyaml reads it, cross references, step code) is ours alone.
 */
export function schemaExpressed(d: { data?: unknown }): boolean {
  const data = d.data as { schema?: unknown } | undefined;
  return !!data && typeof data === 'object' && data.schema === true;
}

/** Where a diagnostic starts (a vscode.Diagnostic or an LSP one). */
type Ranged = { range?: { start: { line: number } } };

/** The YAML extension's own syntax diagnostics (yaml-language-server's `source`). */
export const YAML_SYNTAX_SOURCE = 'YAML';

/**
 * Drops the manifest diagnostics the YAML extension reports too, never one it would not show:
 * those the schema expresses; our YAML syntax error (SM001: the document does not parse) while
 * it shows a syntax error of its own (its parser is not libyaml: it may stop elsewhere, never
 * where the text is fine); a duplicate key (SM002) while it shows a syntax error on that line.
 * `others`: the diagnostics other extensions show for the document now.
 */
export function filterSchemaLevel<T extends { code?: unknown; data?: unknown } & Ranged>(
  uriPath: string,
  diagnostics: T[],
  leaveToYaml: boolean,
  others: readonly ({ source?: string } & Ranged)[] = [],
): T[] {
  if (!leaveToYaml || !isManifestUriPath(uriPath)) {
    return diagnostics;
  }
  const syntaxLines = new Set(others.filter((o) => o.source === YAML_SYNTAX_SOURCE && o.range).map((o) => o.range!.start.line));
  return diagnostics.filter((d) => {
    if (schemaExpressed(d)) {
      return false;
    }
    const code = diagnosticCode(d.code);
    if (code === 'SM001') {
      return syntaxLines.size === 0;
    }
    return !(code === 'SM002' && d.range && syntaxLines.has(d.range.start.line));
  });
}

/**
 * Our manifest hover without the key's schema description, which the YAML extension shows from
 * the same schema: a description-only hover (`**`key`** — ...`, runner/language/manifest.py
 * `describe_key`) goes, a description above a reach card leaves the card. Undefined: no hover.
 */
export function withoutSchemaDescription(markdown: string): string | undefined {
  if (!/^\*\*`[^`\n]+`\*\* — /.test(markdown) && !/^\*\*`[^`\n]+`\*\*(\n|$)/.test(markdown)) {
    return markdown;
  }
  const sep = markdown.indexOf('\n\n---\n\n');
  return sep < 0 ? undefined : markdown.slice(sep + '\n\n---\n\n'.length);
}
