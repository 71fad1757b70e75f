// Stand-in for the Python extension's public API (@vscode/python-extension `environments`), used
// by the "pyext" integration suite. The active interpreter starts as $STEPSMITH_FAKE_PYTHON.
const vscode = require('vscode');

function activate() {
  const emitter = new vscode.EventEmitter();
  let active = process.env.STEPSMITH_FAKE_PYTHON || 'python3';
  const calls = [];
  return {
    environments: {
      getActiveEnvironmentPath(resource) {
        calls.push(resource ? resource.toString() : null);
        return { id: active, path: active };
      },
      async resolveEnvironment(env) {
        const p = typeof env === 'string' ? env : env.path;
        return { id: p, path: p, executable: { uri: vscode.Uri.file(p) } };
      },
      onDidChangeActiveEnvironmentPath: emitter.event,
    },
    // test hooks
    _calls: calls,
    _setActive(p) {
      active = p;
      emitter.fire({ id: p, path: p, resource: undefined });
    },
  };
}

module.exports = { activate, deactivate() {} };
