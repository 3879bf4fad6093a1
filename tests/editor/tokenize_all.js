#!/usr/bin/env node
// Tests the VS Code extension of grammar/editors/vscode against the real
// language (tests/editor/CMakeLists.txt registers one ctest per mode):
//   node tokenize_all.js SRCROOT manifest  the JSON files parse, the paths that
//                                          package.json contributes exist, the
//                                          comment tokens agree with Tk.g4
//   node tokenize_all.js SRCROOT scopes    given tokens get the expected scopes,
//                                          including every keyword of Tk.g4 and
//                                          every name of the frontend's tables
//   node tokenize_all.js SRCROOT files     no character of a valid .tk file of
//                                          the repository is left unscoped
// The last two need vscode-textmate and vscode-oniguruma on NODE_PATH
// (tests/npm); they exit 77 (skipped) when TK_NPM_DIR/unavailable says why
// they could not be installed.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const SKIP = 77;
const [root, mode = 'all'] = process.argv.slice(2);
if (!root || !['manifest', 'scopes', 'files', 'all'].includes(mode)) {
  console.error('usage: tokenize_all.js SRCROOT [manifest|scopes|files|all]');
  process.exit(2);
}
const extDir = path.join(root, 'grammar', 'editors', 'vscode');
const failures = [];
const fail = (msg) => failures.push(msg);
const readSource = (rel) => fs.readFileSync(path.join(root, rel), 'utf8');

function finish() {
  for (const f of failures) console.error('FAIL: ' + f);
  console.log(failures.length ? `${failures.length} failure(s)` : 'ok');
  process.exit(failures.length ? 1 : 0);
}

// ---- manifest ----------------------------------------------------------

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`${path.relative(root, file)}: ${e.message}`);
    return null;
  }
}

function checkManifest() {
  const pkg = readJson(path.join(extDir, 'package.json'));
  if (!pkg) return;
  const c = pkg.contributes || {};
  const lang = (c.languages || []).find((l) => l.id === 'tk');
  if (!lang) return fail('package.json contributes no language "tk"');
  if (!(lang.extensions || []).includes('.tk')) fail('language "tk" does not claim the extension .tk');
  const confFile = path.join(extDir, lang.configuration || '');
  if (!lang.configuration || !fs.existsSync(confFile)) fail(`language configuration ${lang.configuration} does not exist`);
  else checkLanguageConfiguration(readJson(confFile));
  const gram = (c.grammars || []).find((g) => g.language === 'tk');
  if (!gram) return fail('package.json contributes no grammar for "tk"');
  const gramFile = path.join(extDir, gram.path || '');
  if (!gram.path || !fs.existsSync(gramFile)) return fail(`grammar ${gram.path} does not exist`);
  const g = readJson(gramFile);
  if (!g) return;
  if (g.scopeName !== 'source.tk' || gram.scopeName !== g.scopeName) {
    fail(`scopeName: package.json says ${gram.scopeName}, the grammar ${g.scopeName}, expected source.tk`);
  }
  checkIncludes(g);
}

// The comment delimiters are the lexer's (LINE_COMMENT, BLOCK_COMMENT).
function checkLanguageConfiguration(conf) {
  if (!conf) return;
  const g4 = readSource('grammar/Tk.g4');
  const line = /^LINE_COMMENT:\s*'([^']+)'/m.exec(g4);
  const block = /^BLOCK_COMMENT:\s*'([^']+)'.*'([^']+)'\s*->/m.exec(g4);
  if (!line || !block) return fail('grammar/Tk.g4: LINE_COMMENT / BLOCK_COMMENT not found; update this test');
  const cm = conf.comments || {};
  if (cm.lineComment !== line[1]) fail(`lineComment is ${cm.lineComment}, Tk.g4 says ${line[1]}`);
  const bc = cm.blockComment || [];
  if (bc[0] !== block[1] || bc[1] !== block[2]) fail(`blockComment is ${bc}, Tk.g4 says ${block[1]} ${block[2]}`);
  for (const pair of ['{}', '[]', '()']) {
    const has = (list) => (list || []).some((p) => (Array.isArray(p) ? p[0] + p[1] : p.open + p.close) === pair);
    if (!has(conf.brackets)) fail(`language configuration: brackets lack ${pair}`);
    if (!has(conf.autoClosingPairs)) fail(`language configuration: autoClosingPairs lack ${pair}`);
  }
}

// vscode-textmate ignores an include of a missing repository rule, so a
// misspelt one would only show as tokens that lose their colour.
function checkIncludes(g) {
  const used = new Set();
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    if (typeof node.include === 'string') {
      const name = node.include.replace(/^#/, '');
      used.add(name);
      if (!(g.repository || {})[name]) fail(`grammar includes ${node.include}, which the repository lacks`);
    }
    Object.values(node).forEach(walk);
  };
  walk(g);
  for (const name of Object.keys(g.repository || {})) {
    if (!used.has(name)) fail(`grammar repository rule ${name} is never included`);
  }
}

// ---- tokenizer ---------------------------------------------------------

async function loadGrammar() {
  const npmDir = process.env.TK_NPM_DIR;
  if (npmDir && fs.existsSync(path.join(npmDir, 'unavailable'))) {
    const why = fs.readFileSync(path.join(npmDir, 'unavailable'), 'utf8').trim();
    console.log(`skipped: the npm packages are unavailable: ${why}`);
    if (failures.length) finish(); // the manifest check of mode `all` ran
    process.exit(SKIP);
  }
  let tm, onig;
  try {
    tm = require('vscode-textmate');
    onig = require('vscode-oniguruma');
  } catch (e) {
    // Under ctest TK_NPM_DIR is set and the fixture reported no problem, so
    // a missing package is a failure there; by hand it is a usage hint.
    console.log(`vscode-textmate / vscode-oniguruma not found (${e.code}): run tests/npm/install.sh DIR ` +
      'and set NODE_PATH=DIR/node_modules');
    process.exit(npmDir ? 1 : SKIP);
  }
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const grammarFile = path.join(extDir, 'syntaxes', 'tk.tmLanguage.json');
  const registry = new tm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
      createOnigString: (s) => new onig.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.tk' ? tm.parseRawGrammar(fs.readFileSync(grammarFile, 'utf8'), grammarFile) : null,
  });
  const grammar = await registry.loadGrammar('source.tk');
  if (!grammar) throw new Error('the grammar source.tk did not load');
  return { grammar, INITIAL: tm.INITIAL };
}

// Tokenizes text line by line; returns per line an array of
// {start, end, scopes}. A line whose tokenization gives up (time limit:
// a pattern that backtracks catastrophically) is a failure.
function tokenize(tk, text, where) {
  let stack = tk.INITIAL;
  return text.split(/\r?\n/).map((line, i) => {
    const r = tk.grammar.tokenizeLine(line, stack, 5000);
    if (r.stoppedEarly) fail(`${where}:${i + 1}: tokenizing the line took over 5 s`);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ start: t.startIndex, end: Math.min(t.endIndex, line.length), scopes: t.scopes }));
  });
}

// ---- scopes ------------------------------------------------------------

const hasScope = (scopes, want) => scopes.some((s) => s === want || s.startsWith(want + '.'));

// Checks that `text` (its `nth` occurrence as a substring, within one line
// of `snippet`) is exactly a run of tokens, each carrying the scope `want`.
// Text inside a comment or string is part of a longer token, so there only
// the scope is checked.
function expectScope(tk, snippet, text, want, nth = 0) {
  const lines = tokenize(tk, snippet, 'snippet');
  const src = snippet.split('\n');
  const re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g');
  const inside = /^(comment|string)\./.test(want);
  let seen = 0;
  for (let ln = 0; ln < src.length; ++ln) {
    for (const m of src[ln].matchAll(re)) {
      if (seen++ !== nth) continue;
      const s = m.index, e = s + text.length;
      const toks = lines[ln].filter((t) => t.end > s && t.start < e);
      const label = `'${text}' in ${JSON.stringify(snippet)}`;
      if (!toks.length) return fail(`${label}: no tokens`);
      if (!inside && (toks[0].start !== s || toks[toks.length - 1].end !== e)) {
        return fail(`${label}: not a token of its own (${toks.map((t) => src[ln].slice(t.start, t.end)).join('|')})`);
      }
      const bad = toks.find((t) => !hasScope(t.scopes, want));
      if (bad) fail(`${label}: expected ${want}, got ${bad.scopes.join(' ')}`);
      return;
    }
  }
  fail(`'${text}' does not occur ${nth + 1} time(s) in ${JSON.stringify(snippet)}`);
}

// Hand-picked cases: what each kind of token should look like, the soft
// keywords in both roles, and the lexer's number boundaries.
const CASES = [
  ['op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N]', 'matmul', 'entity.name.function.op'],
  ['op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N]', 'op', 'keyword.declaration.op'],
  ['op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N]', 'A', 'variable.parameter'],
  ['op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N]', 'f32', 'storage.type.primitive'],
  ['op matmul(A: f32[M, K], B: f32[K, N]) -> C: f32[M, N]', '->', 'keyword.operator.arrow'],
  ['kernel mm implements matmul on cuda {', 'mm', 'entity.name.function.kernel'],
  ['kernel mm implements matmul on cuda {', 'matmul', 'variable.function.op'],
  ['kernel mm implements matmul on cuda {', 'cuda', 'support.constant.target'],
  ['  C[i, j] = sum(k) A[i, k] * B[k, j];', 'sum', 'support.function.reduction'],
  ['  C[i, j] = sum(k) A[i, k] * B[k, j];', 'C', 'variable.other'],
  ['  C[i, j] = sum(k) A[i, k] * B[k, j];', '*', 'keyword.operator.arithmetic'],
  ['  Y[i] = select(X[i] > 0.0, X[i], exp(X[i]) - 1.0);', 'select', 'support.function.builtin'],
  ['  Y[i] = select(X[i] > 0.0, X[i], exp(X[i]) - 1.0);', 'exp', 'support.function.builtin'],
  ['  Y[i] = max(X[i], 0.0) + f16(X[i]);', 'max', 'support.function.builtin'],
  ['  Y[i] = max(X[i], 0.0) + f16(X[i]);', 'f16', 'storage.type.primitive'],
  ['  let T = ? in {16, 32, 64};', '?', 'constant.language.hole'],
  ['  let T = ? in {16, 32, 64};', 'T', 'variable.other.constant'],
  ['  let T = ? in {16, 32, 64};', '{', 'punctuation.section.braces'],
  ['  Y[i] = X[i] * 1.5e-3 + 2E+8 - 3.25;', '1.5e-3', 'constant.numeric.float'],
  ['  Y[i] = X[i] * 1.5e-3 + 2E+8 - 3.25;', '2E+8', 'constant.numeric.float'],
  ['  Y[i] = X[i] * 1.5e-3 + 2E+8 - 3.25;', '3.25', 'constant.numeric.float'],
  ['  for k in 0..K {', '0', 'constant.numeric.integer'],
  ['  for k in 0..K {', '..', 'keyword.operator.range'],
  ['  for k in 0..K {', 'K', 'variable.other'],
  // .tk has no hex literals: the lexer reads 0x1F as the integer 0 and the
  // name x1F (a syntax error), and so does the grammar.
  ['  Y[i] = 0x1F;', '0', 'constant.numeric.integer'],
  ['  Y[i] = 0x1F;', 'x1F', 'variable.other'],
  ['  B[i] = A[i]; // c', '// c', 'comment.line.double-slash'],
  ['/* a\n  B[i] = A[i];\n*/ op f', 'B[i] = A[i];', 'comment.block'],
  ['/* a\n  B[i] = A[i];\n*/ op f', 'f', 'entity.name.function.op'],
  ['import "std/nn.tk";', '"std/nn.tk"', 'string.quoted.double'],
  ['  X[n, y*s + r - p] else -inf', 'inf', 'constant.language.infinity'],
  ['  X[n, y*s + r - p] else -inf', 'else', 'keyword.control'],
  ['  register acc: f32[T, 64];', 'register', 'storage.modifier.scope'],
  ['  register acc: f32[T, 64];', 'acc', 'variable.other.local'],
  ['  for (i, j) in spatial(4, 8, ranks=[1, 0]) * repeat(2, 2) on threads {', 'spatial', 'support.function.mapping'],
  ['  for (i, j) in spatial(4, 8, ranks=[1, 0]) * repeat(2, 2) on threads {', 'ranks', 'variable.parameter.option'],
  ['  for (i, j) in spatial(4, 8, ranks=[1, 0]) * repeat(2, 2) on threads {', 'threads', 'support.constant.worker'],
  ['  C[i, j] += a * b stream;', 'stream', 'keyword.other.stream'],
  ['  C[i, j] += a * b stream;', '+=', 'keyword.operator.assignment.compound'],
  ['  prefetch B[k + 8, j];', 'prefetch', 'keyword.other.prefetch'],
  ['  if (x && !y || z != 2) { sync; }', '&&', 'keyword.operator.logical'],
  ['  if (x && !y || z != 2) { sync; }', '!=', 'keyword.operator.comparison'],
  ['  if (x && !y || z != 2) { sync; }', 'sync', 'keyword.control.sync'],
  // The declaration words stay names where a declaration cannot start
  // (std/nn.tk's `kernel: i64`).
  ['op avgpool2d(X: f32[N, C, H, W], kernel: i64) -> Y: f32[N, C, H / kernel, W]', 'kernel', 'variable.parameter'],
  ['op avgpool2d(X: f32[N, C, H, W], kernel: i64) -> Y: f32[N, C, H / kernel, W]', 'kernel', 'variable.other', 1],
  ['  where kernel >= 1, on <= kernel / 2', 'where', 'keyword.other.where'],
  ['  where kernel >= 1, on <= kernel / 2', 'on', 'variable.other'],
  ['  for on in 0..N { Y[on] = x * on stream; }', 'on', 'variable.other'],
  ['  for on in 0..N { Y[on] = x * on stream; }', 'on', 'variable.other', 2],
  ['  exp[i] = X[i];', 'exp', 'variable.other'],
];

// The names the frontend knows, read from its own tables, so that a word
// added to the language without the grammar learning it fails here.
function table(rel, re, what) {
  const m = re.exec(readSource(rel));
  const names = m ? [...m[1].matchAll(/"(\w+)"/g)].map((x) => x[1]) : [];
  if (!names.length) fail(`${rel}: ${what} not found; update tests/editor/tokenize_all.js`);
  return names;
}

// A sample statement for each reserved word of Tk.g4, and its scope.
const KEYWORD_SAMPLES = {
  import: ['import "a.tk";', 'keyword.control.import'],
  op: ['op f(A: f32[N]) -> B: f32[N] {', 'keyword.declaration.op'],
  kernel: ['kernel k implements f on cpu {', 'keyword.declaration.kernel'],
  implements: ['kernel k implements f on cpu {', 'keyword.other.implements'],
  on: ['kernel k implements f on cpu {', 'keyword.other.on'],
  where: ['  where N >= 1', 'keyword.other.where'],
  export: ['export f;', 'keyword.control.export'],
  for: ['for k in 0..K {', 'keyword.control'],
  in: ['for k in 0..K {', 'keyword.control'],
  if: ['if (x) { } else { }', 'keyword.control'],
  else: ['if (x) { } else { }', 'keyword.control'],
  let: ['let T = 4;', 'keyword.declaration.let'],
  require: ['require N % 4 == 0;', 'keyword.other.require'],
  sync: ['sync;', 'keyword.control.sync'],
  true: ['x = true;', 'constant.language.boolean'],
  false: ['x = false;', 'constant.language.boolean'],
  inf: ['x = -inf;', 'constant.language.infinity'],
  sum: ['C[i] = sum(k) A[i, k];', 'support.function.reduction'],
  prod: ['C[i] = prod(k) A[i, k];', 'support.function.reduction'],
  mean: ['C[i] = mean(k) A[i, k];', 'support.function.reduction'],
  max: ['C[i] = max(k) A[i, k];', 'support.function.builtin'],
  min: ['C[i] = min(k) A[i, k];', 'support.function.builtin'],
  'max=': ['C[i] max= A[i];', 'keyword.operator.assignment.compound'],
  'min=': ['C[i] min= A[i];', 'keyword.operator.assignment.compound'],
};

function checkScopes(tk) {
  for (const [snippet, text, want, nth] of CASES) expectScope(tk, snippet, text, want, nth);

  const words = [...readSource('grammar/Tk.g4').matchAll(/^[A-Z_]+\s*:\s*'([a-z][a-z0-9_]*=?)'\s*;/gm)].map((m) => m[1]);
  if (words.length < 10) fail('grammar/Tk.g4: the keyword tokens were not found; update this test');
  for (const w of words) {
    const sample = KEYWORD_SAMPLES[w];
    if (!sample) fail(`Tk.g4 keyword '${w}' has no sample in KEYWORD_SAMPLES: add one (and a grammar rule)`);
    else expectScope(tk, sample[0], w, sample[1]);
  }
  const fns = table('frontend/SemaExpr.cpp', /knownFunctions\(\)\s*\{[^{]*\{([^}]*)\}/, 'knownFunctions');
  const math = [...readSource('frontend/SemaExpr.cpp').matchAll(/\{"(\w+)",\s*ir::MathFn::/g)].map((m) => m[1]);
  if (!math.length) fail('frontend/SemaExpr.cpp: kMathFns not found; update this test');
  const types = table('ir/Type.cpp', /kTypes\{\{([\s\S]*?)\}\};/, 'kTypes');
  for (const f of [...fns, ...math]) {
    const want = types.includes(f) ? 'storage.type.primitive' : 'support.function';
    expectScope(tk, `  Y[i] = ${f}(X[i], 2);`, f, want);
  }
  for (const t of types) expectScope(tk, `op f(A: ${t}[N]) -> B: f32[N] {`, t, 'storage.type.primitive');
  for (const s of table('frontend/SemaIntrinsic.cpp', /known = \{([^}]*)\}/, 'the GPU statements')) {
    expectScope(tk, `  ${s}(a, S[r, c]);`, s, 'support.function.intrinsic');
  }
  for (const s of table('ir/Type.cpp', /kScopes\{([^}]*)\}/, 'kScopes')) {
    expectScope(tk, `  ${s} acc: f32[4];`, s, 'storage.modifier.scope');
  }
  for (const w of table('ir/Type.cpp', /kWorkers\{([^}]*)\}/, 'kWorkers')) {
    expectScope(tk, `  for i in spatial(4) on ${w} {`, w, 'support.constant.worker');
  }
  for (const t of table('ir/Type.cpp', /kTargets\{([^}]*)\}/, 'kTargets')) {
    expectScope(tk, `kernel k implements f on ${t} {`, t, 'support.constant.target');
  }
  for (const m of table('frontend/SemaKernel.cpp', /didYouMean\(a\.name, \{([^}]*)\}/, 'the task mappings')) {
    expectScope(tk, `  for i in ${m}(4) * ${m}(2) on cores {`, m, 'support.function.mapping');
  }
}

// ---- repository files --------------------------------------------------

function tkFiles() {
  try {
    const out = execFileSync('git', ['-C', root, 'ls-files', '-co', '--exclude-standard', '--', '*.tk'],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter(Boolean).filter((f) => fs.existsSync(path.join(root, f)));
  } catch (e) {
    // Not a git checkout (a source archive): walk it, leaving out build trees.
    const found = [];
    const walk = (dir) => {
      for (const ent of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.join(dir, ent.name);
        if (ent.isDirectory() && !/^(\.git|node_modules|build.*)$/.test(ent.name)) walk(rel);
        else if (ent.isFile() && ent.name.endsWith('.tk')) found.push(rel);
      }
    };
    walk('');
    return found;
  }
}

// Files that are broken on purpose, down to the lexer: the syntax-error
// tests (a stray '@', an unclosed string) and the fuzzer's crash inputs
// (invalid UTF-8, truncated statements). They are still tokenized, so a
// pattern that hangs on them fails, but unscoped text in them is expected.
// The other diagnostic tests are lexically valid and are checked in full.
const isBrokenOnPurpose = (rel) => /^tests\/diag\/syntax_[^/]*\.tk$|^tests\/fuzz\/regressions\//.test(rel);

function checkFiles(tk) {
  const files = tkFiles();
  let checked = 0;
  for (const rel of files) {
    const text = fs.readFileSync(path.join(root, rel), 'utf8');
    const lines = tokenize(tk, text, rel);
    if (isBrokenOnPurpose(rel)) continue;
    ++checked;
    const src = text.split(/\r?\n/);
    let reported = 0;
    lines.forEach((toks, ln) => {
      for (const t of toks) {
        if (t.scopes.length !== 1) continue; // only the root scope: nothing matched
        const piece = src[ln].slice(t.start, t.end);
        const m = /\S+(?:\s+\S+)*/.exec(piece);
        if (!m) continue;
        if (++reported <= 20) fail(`${rel}:${ln + 1}:${t.start + m.index + 1}: unknown token region '${m[0]}'`);
      }
    });
    if (reported > 20) fail(`${rel}: ${reported - 20} more unknown token regions`);
  }
  // A wrong root or an empty listing must not pass as "nothing unscoped".
  if (checked < 20) fail(`only ${checked} .tk files found under ${root}`);
  console.log(`tokenized ${files.length} .tk files, checked ${checked} (${files.length - checked} broken on purpose)`);
}

(async () => {
  if (!fs.existsSync(path.join(root, 'grammar', 'Tk.g4'))) {
    console.error(`${root} is not the tkc source tree (no grammar/Tk.g4)`);
    process.exit(2);
  }
  if (mode === 'manifest' || mode === 'all') checkManifest();
  if (mode !== 'manifest') {
    const tk = await loadGrammar();
    if (mode === 'scopes' || mode === 'all') checkScopes(tk);
    if (mode === 'files' || mode === 'all') checkFiles(tk);
  }
  finish();
})().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
