// Stand-in for redhat.vscode-yaml in the "yamlext" integration suite: the real yaml-language-server
// (vscode-extension/node_modules, $STEPSMITH_EXT_DIR) over the real vscode-languageclient, for YAML
// documents, with the schema associations every installed extension contributes through
// `yamlValidation` (as the real extension reads them), validation and hover on.
const path = require('path');
const vscode = require('vscode');

let client;

function schemaAssociations() {
  const out = {};
  for (const ext of vscode.extensions.all) {
    const list = (ext.packageJSON.contributes || {}).yamlValidation || [];
    for (const v of Array.isArray(list) ? list : []) {
      if (!v || !v.url) continue;
      const url = /^\w+:/.test(v.url) ? v.url : vscode.Uri.file(path.join(ext.extensionPath, v.url)).toString();
      const match = Array.isArray(v.fileMatch) ? v.fileMatch : [v.fileMatch];
      out[url] = (out[url] || []).concat(match.map((m) => (m.includes('/') ? m : `**/${m}`)));
    }
  }
  return out;
}

async function activate(context) {
  const extDir = process.env.STEPSMITH_EXT_DIR;
  const lc = require(path.join(extDir, 'node_modules', 'vscode-languageclient', 'node'));
  const serverModule = path.join(extDir, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
  const yamlSettings = () => ({
    ...vscode.workspace.getConfiguration('yaml'),
    schemas: schemaAssociations(), validate: true, hover: true, completion: true,
    format: { enable: false }, schemaStore: { enable: false },
  });
  client = new lc.LanguageClient('yaml', 'YAML Support (stand-in)',
    { run: { module: serverModule, transport: lc.TransportKind.ipc }, debug: { module: serverModule, transport: lc.TransportKind.ipc } },
    {
      documentSelector: [{ language: 'yaml' }],
      synchronize: { configurationSection: ['yaml', 'http', '[yaml]', 'editor', 'files'] },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            return params.items.map((item, i) => (item.section === 'yaml' ? yamlSettings() : (Array.isArray(result) ? result[i] : null)));
          },
        },
      },
    });
  await client.start();
  // what the real extension sends once started: the settings with the schema associations
  await client.sendNotification('workspace/didChangeConfiguration', { settings: { yaml: yamlSettings() } });
  return { client };
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
