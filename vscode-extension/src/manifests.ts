// Which documents the language client serves. Pure: no `vscode` import.
//
// Manifests (workflow.yaml, *.workflow.yaml) anywhere; Python only inside folders that hold a
// manifest, so the server never sees the rest of the world's Python. VS Code's document selector
// is fixed when the client starts, so the Python patterns are computed from the manifests found at
// start, and the client restarts when that set of folders changes (a manifest created/deleted).

import * as path from 'path';
import GRAMMAR from './generated/grammar.json';

// The grammar is generated from runner/model/grammar.py (`python -m stepsmith.runner.model.export
// --write`); a Python test fails when this copy drifts. Nothing here spells a name rule itself.
export { GRAMMAR };

export const MANIFEST_GLOBS: readonly string[] = GRAMMAR.manifest.globs;

const SLUG = new RegExp(GRAMMAR.slug.pattern);
const CASE = new RegExp(GRAMMAR.case.pattern);

/** `workflow.yaml` or `<name>.workflow.yaml` (a bare `.workflow.yaml` is not one), as the server decides. */
export function isManifestName(base: string): boolean {
  const { name, suffix } = GRAMMAR.manifest;
  return base === name || (base.endsWith(suffix) && base.length > suffix.length);
}

/** A manifest path? Works on file paths and URI paths (`/`-separated). */
export function isManifestPath(p: string): boolean {
  return isManifestName(path.posix.basename(p.split(path.sep).join('/')));
}

/** A workflow slug or step id. */
export function isSlug(s: string): boolean {
  return SLUG.test(s);
}

/** A fixture case name (the file becomes fixtures/<step>/<case>.json). */
export function isCaseName(s: string): boolean {
  return CASE.test(s);
}

/** Why `s` is not a case name (for an input box), or undefined when it is one. */
export function caseNameProblem(s: string): string | undefined {
  return isCaseName(s) ? undefined : `use ${GRAMMAR.case.rule}`;
}

/** Folders holding a manifest, deduplicated, with nested folders dropped (their parent covers them). */
export function workflowFolders(manifestPaths: string[]): string[] {
  const dirs = [...new Set(manifestPaths.filter(isManifestPath).map((p) => path.dirname(path.normalize(p))))].sort();
  const out: string[] = [];
  for (const d of dirs) {
    if (!out.some((parent) => d === parent || d.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep))) {
      out.push(d);
    }
  }
  return out;
}

/** Escapes glob metacharacters in a literal path. */
export function escapeGlob(p: string): string {
  return p.replace(/[[\]{}()*?!]/g, (c) => `[${c}]`);
}

export interface Filter {
  scheme: string;
  language: string;
  pattern: string;
}

/** The client's documentSelector: manifests everywhere, Python and the fixture files (their
 * `check` findings, SF002-SF009, and run results) under each workflow folder. */
export function documentSelector(manifestPaths: string[]): Filter[] {
  const filters: Filter[] = MANIFEST_GLOBS.map((g) => ({ scheme: 'file', language: 'yaml', pattern: g }));
  for (const dir of workflowFolders(manifestPaths)) {
    const posix = dir.split(path.sep).join('/');
    filters.push({ scheme: 'file', language: 'python', pattern: `${escapeGlob(posix)}/**/*.py` });
    filters.push({ scheme: 'file', language: 'json', pattern: `${escapeGlob(posix)}/**/fixtures/**/*.json` });
  }
  return filters;
}

/** A stable key to compare two sets of workflow folders (restart only when it changes). */
export function folderKey(manifestPaths: string[]): string {
  return workflowFolders(manifestPaths).join('\n');
}
