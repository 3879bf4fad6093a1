'use strict';
// The tk extension's diagnostics: when a .tk file is opened or saved, tkc
// checks it (parse, types, scheduling, task-mapping and fusion checks,
// lowering; no code generation) and its errors and warnings become squiggles
// in that file and in the files it imports.

const vscode = require('vscode');
const { execFile } = require('child_process');
const os = require('os');
const path = require('path');
const { parseTkcDiagnostics } = require('./diagnostics');

function activate(context) {
  const collection = vscode.languages.createDiagnosticCollection('tkc');
  context.subscriptions.push(collection);
  const running = new Map(); // file -> the tkc run checking it
  const reported = new Map(); // file -> the files its last check reported on
  let warnedMissing = false;

  function toVscode(d) {
    const range = new vscode.Range(d.line, d.column, d.line, d.endColumn);
    const diag = new vscode.Diagnostic(range, d.message, d.severity);
    diag.source = 'tkc';
    return diag;
  }

  // Checks `doc` with tkc; resolves when its diagnostics are published.
  function check(doc) {
    if (doc.languageId !== 'tk' || doc.uri.scheme !== 'file') return Promise.resolve();
    const config = vscode.workspace.getConfiguration('tk');
    const tkc = config.get('tkcPath', 'tkc');
    const file = doc.uri.fsPath;
    const cwd = path.dirname(file);
    const args = [file, '--diagnostics-format=json', '--emit=loop', '-o', os.devNull, ...config.get('arguments', [])];
    const previous = running.get(file);
    if (previous) previous.kill();
    return new Promise((resolve) => {
      const child = execFile(tkc, args, { cwd, timeout: 120000, maxBuffer: 64 << 20 }, (error, _stdout, stderr) => {
        if (running.get(file) !== child) return resolve(); // a later check replaced this one
        running.delete(file);
        if (error && error.code === 'ENOENT') {
          if (!warnedMissing) {
            warnedMissing = true;
            vscode.window.showWarningMessage(`tk: cannot run '${tkc}'; set tk.tkcPath to the tkc compiler.`);
          }
          return resolve();
        }
        const { byFile, problem } = parseTkcDiagnostics(stderr || '', cwd);
        for (const f of reported.get(file) || []) collection.delete(vscode.Uri.file(f));
        const mine = byFile.get(file) || [];
        // Messages without a location, or a tkc that did not answer in JSON,
        // are shown at the top of the file checked.
        for (const d of byFile.get('') || []) mine.push({ ...d, line: 0, column: 0, endColumn: 1 });
        if (problem) mine.push({ line: 0, column: 0, endColumn: 1, severity: 0, message: `tkc: ${problem}` });
        const files = [file];
        collection.set(doc.uri, mine.map(toVscode));
        for (const [f, list] of byFile)
          if (f !== '' && f !== file) {
            collection.set(vscode.Uri.file(f), list.map(toVscode));
            files.push(f);
          }
        reported.set(file, files);
        resolve();
      });
      running.set(file, child);
    });
  }

  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidSaveTextDocument(check),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      for (const f of reported.get(doc.uri.fsPath) || []) collection.delete(vscode.Uri.file(f));
      reported.delete(doc.uri.fsPath);
    })
  );
  for (const doc of vscode.workspace.textDocuments) check(doc);
  return { check };
}

function deactivate() {}

module.exports = { activate, deactivate };
