// extension_check.js SRC TKC: the VS Code extension's diagnostics
// (grammar/editors/vscode/extension.js) without VS Code: the extension is
// activated against a stand-in for the `vscode` module that records what it
// publishes, and checks .tk files with the real tkc. Needs node only.
'use strict';
const assert = require('assert');
const Module = require('module');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [src, tkc] = process.argv.slice(2);
const ext = path.join(src, 'grammar/editors/vscode');
const inputs = path.join(src, 'tests/editor/inputs');
const explainInputs = path.join(src, 'tests/explain/inputs');
let failures = 0;
async function test(name, fn) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}

// The parts of the VS Code API the extension uses.
const published = new Map(); // fsPath -> [Diagnostic]
const warnings = [];
const settings = { tkcPath: tkc, arguments: ['--hw=zen5-2c'] };
class Range {
  constructor(l0, c0, l1, c1) { Object.assign(this, { start: { line: l0, character: c0 }, end: { line: l1, character: c1 } }); }
}
class Diagnostic {
  constructor(range, message, severity) { Object.assign(this, { range, message, severity }); }
}
const uri = (f) => ({ scheme: 'file', fsPath: f });
const vscode = {
  Range, Diagnostic,
  DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
  Uri: { file: uri },
  languages: {
    createDiagnosticCollection: () => ({
      set: (u, list) => published.set(u.fsPath, list),
      delete: (u) => published.delete(u.fsPath),
      dispose() {},
    }),
  },
  workspace: {
    textDocuments: [],
    getConfiguration: () => ({ get: (k, dflt) => (k in settings ? settings[k] : dflt) }),
    onDidOpenTextDocument: () => ({ dispose() {} }),
    onDidSaveTextDocument: () => ({ dispose() {} }),
    onDidCloseTextDocument: () => ({ dispose() {} }),
  },
  window: { showWarningMessage: (m) => warnings.push(m) },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request === 'vscode' ? vscode : load.call(this, request, parent, isMain);
};

const { parseTkcDiagnostics, tokenEnd } = require(path.join(ext, 'diagnostics.js'));
const api = require(path.join(ext, 'extension.js')).activate({ subscriptions: [] });
const doc = (f) => ({ languageId: 'tk', uri: uri(f) });

(async () => {
  await test('manifest names the entry point and the settings', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ext, 'package.json'), 'utf8'));
    assert.strictEqual(pkg.main, './extension.js');
    assert.ok(fs.existsSync(path.join(ext, pkg.main)));
    assert.deepStrictEqual(pkg.activationEvents, ['onLanguage:tk']);
    assert.ok(pkg.contributes.configuration.properties['tk.tkcPath']);
    assert.ok(pkg.contributes.configuration.properties['tk.arguments']);
  });

  await test('a refused kernel: the error where tkc located it, on the word there', async () => {
    const f = path.join(explainInputs, 'broken.tk');
    await api.check(doc(f));
    const list = published.get(f);
    assert.ok(list && list.length >= 1, 'no diagnostics published');
    const d = list[0];
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Error);
    assert.match(d.message, /mapping never writes C/);
    assert.deepStrictEqual([d.range.start.line, d.range.start.character, d.range.end.character], [6, 4, 5]); // `C` at 7:5
  });

  await test('a refused fusion is a warning', async () => {
    const f = path.join(explainInputs, 'norms.tk');
    await api.check(doc(f));
    const list = published.get(f) || [];
    const w = list.find((d) => /cannot fuse 'O' into 's'/.test(d.message));
    assert.ok(w, 'no fusion warning: ' + JSON.stringify(list));
    assert.strictEqual(w.severity, vscode.DiagnosticSeverity.Warning);
  });

  await test('an error in an imported file is published on that file, and cleared with the next check', async () => {
    const f = path.join(inputs, 'imports_typo.tk');
    const imported = path.join(inputs, 'typo_lib.tk');
    published.clear();
    await api.check(doc(f));
    const there = published.get(imported) || [];
    assert.ok(there.some((d) => /unknown tensor 'Xs'/.test(d.message) && d.range.start.line === 1), JSON.stringify(there));
    assert.deepStrictEqual(published.get(f), []);
    // Checked again once the library is fixed (in a copy): its error goes.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tk-editor-'));
    const lib = path.join(dir, 'typo_lib.tk');
    fs.copyFileSync(f, path.join(dir, 'imports_typo.tk'));
    fs.copyFileSync(imported, lib);
    try {
      await api.check(doc(path.join(dir, 'imports_typo.tk')));
      assert.strictEqual((published.get(lib) || []).length, 1);
      fs.writeFileSync(lib, fs.readFileSync(imported, 'utf8').replace('Xs[i]', 'X[i]'));
      await api.check(doc(path.join(dir, 'imports_typo.tk')));
      assert.strictEqual(published.get(lib), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  await test('a file that compiles cleanly has no diagnostics', async () => {
    const f = path.join(src, 'examples/matmul.tk');
    await api.check(doc(f));
    assert.deepStrictEqual(published.get(f), []);
  });

  await test('a tkc that cannot be run is said once, as a warning', async () => {
    const saved = settings.tkcPath;
    settings.tkcPath = path.join(os.tmpdir(), 'no-such-tkc');
    try {
      await api.check(doc(path.join(src, 'examples/matmul.tk')));
      await api.check(doc(path.join(src, 'examples/matmul.tk')));
    } finally {
      settings.tkcPath = saved;
    }
    assert.strictEqual(warnings.length, 1);
    assert.match(warnings[0], /cannot run/);
  });

  await test('a usage error (no location) is shown at the top of the file', async () => {
    const f = path.join(src, 'examples/matmul.tk');
    settings.arguments = ['--no-such-option'];
    try {
      await api.check(doc(f));
    } finally {
      settings.arguments = ['--hw=zen5-2c'];
    }
    const list = published.get(f) || [];
    assert.ok(list.length === 1 && list[0].range.start.line === 0, JSON.stringify(list));
    assert.match(list[0].message, /no-such-option/);
  });

  await test('parsing: positions are 0-based, words spanned, text that is not JSON reported', () => {
    const json = JSON.stringify([
      { severity: 'note', file: 'a.tk', line: 3, column: 8, message: 'm', source: '  for (i_1) in x' },
    ]);
    const { byFile, problem } = parseTkcDiagnostics(json, '/w');
    assert.strictEqual(problem, '');
    assert.deepStrictEqual(byFile.get('/w/a.tk'), [{ line: 2, column: 7, endColumn: 10, severity: 2, message: 'm' }]);
    assert.strictEqual(tokenEnd('a + b', 2), 3); // not a word: one character
    assert.match(parseTkcDiagnostics('Segmentation fault\n', '/w').problem, /Segmentation fault/);
    assert.strictEqual(parseTkcDiagnostics('  \n', '/w').byFile.size, 0);
  });

  process.exit(failures ? 1 : 0);
})();
