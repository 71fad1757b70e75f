// What the status bar says about the active workflow's Python (stepsmith/python). Pure (no
// `vscode` import) so mocha tests it; the status bar item lives in pythonStatus.ts.

import { PythonResponse } from './protocol';

export interface PythonLabel {
  /** false: the active editor is not part of a workflow (the item hides) */
  visible: boolean;
  text: string;
  tooltip: string;
  /** the pinned Python is not installed: shown as a warning */
  missing: boolean;
}

const PIN = /^3\.\d{1,2}(\.\d{1,3})?$/;

/** A status bar text may not carry workflow text that VS Code would render as an icon (`$(name)`). */
function quiet(text: string): string {
  return text.replace(/\$\(/g, '$\u200b(');
}

export function pythonLabel(resp: PythonResponse | null | undefined): PythonLabel {
  if (!resp) {
    return { visible: false, text: '', tooltip: '', missing: false };
  }
  const pin = resp.pin !== null && PIN.test(resp.pin) ? resp.pin : null;
  if (pin === null) {
    return {
      visible: true, missing: true, text: '$(warning) Python: not pinned',
      tooltip: 'The workflow manifest has no valid `python:` (write e.g. python: "3.11").',
    };
  }
  if (resp.version === null || resp.path === null) {
    return {
      visible: true, missing: true, text: `$(warning) Python ${pin}: not installed`,
      tooltip: quiet(resp.problem ?? `Python ${pin} is not installed here.`),
    };
  }
  const own = resp.running ? ' (the interpreter Stepsmith runs on)' : '';
  return {
    visible: true, missing: false, text: `$(symbol-namespace) Python ${quiet(resp.version)}`,
    tooltip: quiet(`This workflow's steps are checked and run on Python ${resp.version} at ${resp.path}${own}; `
      + `pinned by python: "${pin}".`),
  };
}
