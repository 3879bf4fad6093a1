'use strict';
// tkc's JSON diagnostics (`--diagnostics-format=json`: one array on stderr,
// docs/driver.md "JSON diagnostics") as editor diagnostics, without the
// VS Code API so that it can be tested with plain node
// (tests/editor/extension_check.js).

const path = require('path');

const SEVERITIES = { error: 0, warning: 1, note: 2 }; // VS Code's Error, Warning, Information

// The end column (0-based, exclusive) of the token starting at `column`
// (0-based) of `source`: an identifier or number, else one character.
function tokenEnd(source, column) {
  let end = column;
  while (end < source.length && /[A-Za-z0-9_.]/.test(source[end])) end++;
  return end > column ? end : column + 1;
}

// Parses tkc's stderr. Returns { byFile, problem }: byFile maps each
// absolute file path (relative ones resolved against `cwd`, tkc's working
// directory) to its diagnostics { line, column, endColumn, severity,
// message } with 0-based positions; `problem` is the text of what was not
// such a document (a tkc that crashed or is not tkc), else ''. Diagnostics
// without a location (a usage error) go under the key ''.
function parseTkcDiagnostics(stderr, cwd) {
  const byFile = new Map();
  const text = stderr.trim();
  if (text === '') return { byFile, problem: '' };
  let list;
  try {
    list = JSON.parse(text);
  } catch (e) {
    return { byFile, problem: text.split('\n').slice(0, 5).join('\n') };
  }
  if (!Array.isArray(list)) return { byFile, problem: 'tkc wrote JSON that is not a list of diagnostics' };
  for (const d of list) {
    const file = d.file ? path.resolve(cwd, d.file) : '';
    const line = Math.max(0, (d.line || 1) - 1);
    const column = Math.max(0, (d.column || 1) - 1);
    const entry = {
      line,
      column,
      endColumn: tokenEnd(d.source || '', column),
      severity: SEVERITIES[d.severity] ?? 0,
      message: d.message || '',
    };
    if (!byFile.has(file)) byFile.set(file, []);
    byFile.get(file).push(entry);
  }
  return { byFile, problem: '' };
}

module.exports = { parseTkcDiagnostics, tokenEnd };
