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
  };
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
  };
}

/** Server command ids that execute code (refused client-side in untrusted workspaces). */
export const EXECUTING_COMMANDS = new Set(['stepsmith.runStepFixtures', 'stepsmith.runFixture', 'stepsmith.recordFixture']);

/** Manifest diagnostics the JSON Schema can express too (the YAML extension would repeat them). */
export const SCHEMA_LEVEL_CODES = new Set(['SM001', 'SM002', 'SM003', 'SM004', 'SM005']);

/**
 * Whether our schema-level manifest diagnostics are dropped (left to the YAML extension).
 * Only when the user leaves it on "auto", the YAML extension is active, and its validation is on.
 */
export function leaveSchemaErrorsToYamlExtension(
  s: Settings,
  yamlExtensionActive: boolean,
  yamlValidateSetting: boolean | undefined,
): boolean {
  return s.manifestSchemaDiagnostics === 'auto' && yamlExtensionActive && yamlValidateSetting !== false;
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

/** Drops our schema-level manifest diagnostics when they are left to the YAML extension. */
export function filterSchemaLevel<T extends { code?: unknown }>(uriPath: string, diagnostics: T[], leaveToYaml: boolean): T[] {
  if (!leaveToYaml || !isManifestUriPath(uriPath)) {
    return diagnostics;
  }
  return diagnostics.filter((d) => !SCHEMA_LEVEL_CODES.has(diagnosticCode(d.code)));
}
