// Grammar of the .tk language (normative description: docs/language.md).
// Generated with: antlr4 -Dlanguage=Cpp -visitor -no-listener -package tkgen
// The parse tree is turned into the AST by frontend/BuildAST.cpp; syntax
// errors are worded by frontend/SyntaxErrors.cpp, so every token that can
// only appear in broken input (ERRCHAR, UNTERMINATED_*) exists to give those
// errors a precise message instead of an ANTLR lexer failure.
grammar Tk;

file: decl* EOF;

decl: importDecl | opDecl | kernelDecl | exportDecl;

importDecl: IMPORT STRING ';';
exportDecl: EXPORT name ';';

opDecl: OP name '(' (param (',' param)*)? ')' '->' outputs whereClause? block;
param: name ':' typeRef;
outputs: param | '(' param (',' param)* ')';
whereClause: WHERE expr (',' expr)*;
// `f32` (scalar or shape inferred), `f32[]` (rank 0), `f32[M, K]`.
typeRef: ID (shape='[' (expr (',' expr)*)? ']')?;

kernelDecl: KERNEL name IMPLEMENTS name ON name block;

block: '{' stmt* '}';

stmt
  : FOR loopVars IN mapping (ON name)? block                        # mapForStmt
  | FOR name IN expr '..' expr block                                 # seqForStmt
  | name name ':' typeRef ';'                                        # localStmt
  // A store may end in a hint, `stream` (a non-temporal store, cpu).
  | name (idx='[' (expr (',' expr)*)? ']')? assignOp expr hint=name? ';'   # storeStmt
  // `prefetch T[i, j];` (the word is checked by sema, not reserved).
  | name name '[' (expr (',' expr)*)? ']' ';'                        # prefetchStmt
  | SYNC ';'                                                         # syncStmt
  // GPU statements (mma, ldmatrix, cp_async, ...: frontend/SemaIntrinsic)
  | name '(' (expr (',' expr)*)? ')' ';'                             # intrinsicStmt
  | ifStmt                                                           # ifStmtAlt
  | LET name '=' expr ';'                                            # letStmt
  | REQUIRE expr ';'                                                 # requireStmt
  | block                                                            # blockStmt
  ;

ifStmt: IF '(' expr ')' block (ELSE (block | ifStmt))?;

loopVars: name | '(' name (',' name)* ')';
mapping: mapAtom ('*' mapAtom)*;
// spatial(4, 8) / repeat(2, 2) / spatial(4, 8, ranks=[1, 0])
mapAtom: name '(' expr (',' expr)* (',' name '=' '[' INT (',' INT)* ']')? ')';

assignOp: '=' | '+=' | '*=' | MAXEQ | MINEQ;

// Alternatives are listed from the tightest to the loosest binding. A
// reduction is a prefix operator of the lowest precedence, so its body
// extends as far right as possible. `max(a, b) - c` parses both as a call
// followed by a subtraction and as a reduction over a, b of `-c`; ANTLR
// resolves that ambiguity to the first alternative, i.e. the call.
expr
  : primary                                                          # primaryExpr
  | op=('-' | '!') expr                                              # unaryExpr
  | expr op=('*' | '/' | '%') expr                                   # binaryExpr
  | expr op=('+' | '-') expr                                         # binaryExpr
  | expr op=('<' | '<=' | '>' | '>=') expr                           # binaryExpr
  | expr op=('==' | '!=') expr                                       # binaryExpr
  | expr op='&&' expr                                                # binaryExpr
  | expr op='||' expr                                                # binaryExpr
  | reducer=(SUM | PROD | MEAN | MAX | MIN) '(' reduceVar (',' reduceVar)* ')' expr   # reduceExpr
  ;

reduceVar: name ('<' expr)?;

primary
  : INT                                                              # intLit
  | FLOAT                                                            # floatLit
  | (TRUE | FALSE)                                                   # boolLit
  | INF                                                              # infLit
  | '?' (IN '{' INT (',' INT)* '}')?                                 # holeExpr
  | callee=(ID | MAX | MIN) '(' (expr (',' expr)*)? ')'              # callExpr
  | name '[' (expr (',' expr)*)? ']' (ELSE padValue)?                # accessExpr
  | name                                                             # nameExpr
  | '(' expr ')'                                                     # parenExpr
  ;

// Any literal (docs/language.md §3.1); sema checks its type against the tensor's.
padValue: neg='-'? (INT | FLOAT | TRUE | FALSE | INF | name | '(' expr ')');

// Declaration keywords are reserved only where a declaration can start, so
// they stay usable as parameter and variable names (`kernel: i64`).
name: ID | OP | KERNEL | IMPLEMENTS | ON | WHERE | IMPORT | EXPORT;

// ---- lexer ----
IMPORT: 'import';
OP: 'op';
KERNEL: 'kernel';
IMPLEMENTS: 'implements';
ON: 'on';
WHERE: 'where';
EXPORT: 'export';
FOR: 'for';
IN: 'in';
IF: 'if';
ELSE: 'else';
LET: 'let';
REQUIRE: 'require';
SYNC: 'sync';
TRUE: 'true';
FALSE: 'false';
INF: 'inf';
SUM: 'sum';
PROD: 'prod';
MEAN: 'mean';
MAX: 'max';
MIN: 'min';
MAXEQ: 'max=';
MINEQ: 'min=';

ARROW: '->';
DOTDOT: '..';
PLUSEQ: '+=';
STAREQ: '*=';
EQ: '==';
NE: '!=';
LE: '<=';
GE: '>=';
AND: '&&';
OR: '||';
LT: '<';
GT: '>';
ASSIGN: '=';
PLUS: '+';
MINUS: '-';
STAR: '*';
SLASH: '/';
PERCENT: '%';
NOT: '!';
QUESTION: '?';
LPAREN: '(';
RPAREN: ')';
LBRACK: '[';
RBRACK: ']';
LBRACE: '{';
RBRACE: '}';
COMMA: ',';
SEMI: ';';
COLON: ':';

// A float needs digits on both sides of the point so that `0..K` lexes as
// INT DOTDOT ID.
FLOAT: [0-9]+ '.' [0-9]+ EXPONENT? | [0-9]+ EXPONENT;
INT: [0-9]+;
ID: [a-zA-Z_] [a-zA-Z_0-9]*;
STRING: '"' (~["\\\r\n] | '\\' ~[\r\n])* '"';
UNTERMINATED_STRING: '"' (~["\\\r\n] | '\\' ~[\r\n])*;

LINE_COMMENT: '//' ~[\r\n]* -> skip;
BLOCK_COMMENT: '/*' .*? '*/' -> skip;
// Cannot contain "*/", so it only wins over BLOCK_COMMENT when the comment
// is never closed.
UNTERMINATED_COMMENT: '/*' (~'*' | '*'+ ~[*/])* '*'*;
WS: [ \t\r\n\f]+ -> skip;
ERRCHAR: .;

fragment EXPONENT: [eE] [+-]? [0-9]+;
