// AST: the syntax of one .tk file, as written (no names resolved, no types
// checked). Built by BuildAST from the ANTLR parse tree, printed by PrintAST
// (`--emit=ast`) and turned into IR by Sema. Every node carries the location
// of its first token.
#pragma once
#include "ir/SourceLoc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tk::ast {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  Int, Float, Bool, Inf, // literals
  Name,                  // symbol, scalar parameter, index/loop variable, `let` name
  Access,                // T[i, j] (optionally `else pad`)
  Call,                  // f(args): math functions, max/min/pow/cdiv/select, casts
  Unary, Binary,
  Reduce,                // sum/prod/mean/max/min(vars) body
  Hole                   // ? or ? in {..}
};

struct ReduceVar {
  std::string name;
  ExprPtr bound; // `r < R`; null when the range is inferred
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  int64_t intValue = 0;   // Int, Bool (0/1)
  double floatValue = 0;  // Float
  std::string name;       // Name, Access tensor, Call callee, Reduce reducer
  std::string op;         // Unary / Binary operator spelling ("-", "&&", ...)
  std::vector<ExprPtr> args; // Access indices, Call args, operands, Reduce {body}
  ExprPtr pad;            // Access: value read outside the tensor (`else`)
  std::vector<ReduceVar> rvars;
  std::vector<int64_t> candidates; // Hole: `? in {..}`, empty = any
  bool parenthesized = false; // written in parentheses: `(a + b)`
};

// `f32`, `f32[]` or `f32[M, K]`.
struct TypeRef {
  std::string dtype;
  SourceLoc loc;
  bool hasShape = false;
  std::vector<ExprPtr> shape;
};

struct Param {
  std::string name;
  TypeRef type;
  SourceLoc loc;
};

struct MapAtom {
  std::string name; // spatial / repeat (checked by Sema)
  std::vector<ExprPtr> dims;
  std::vector<int64_t> ranks; // `ranks=[..]`, empty when absent
  std::string ranksKeyword;   // the identifier before `=` (must be "ranks")
  SourceLoc loc, ranksLoc;
};

struct Ident {
  std::string name;
  SourceLoc loc;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  enum class Kind { Store, MapFor, SeqFor, Local, Sync, If, Let, Require, Block, Intrinsic, Prefetch } kind;
  SourceLoc loc;

  // Store: target[indices] accum value [hint]. Local: scope name: type.
  // Intrinsic: target(indices...), e.g. mma(d[i], a[i], b[j]).
  // Prefetch: scope (the word `prefetch`) target[indices].
  Ident target;
  Ident hint; // Store: empty, or the word after the value (`stream`)
  bool hasIndices = false;
  std::vector<ExprPtr> indices;
  std::string accum; // "=", "+=", "*=", "max=", "min="
  ExprPtr value;     // Store, Let (value), SeqFor (end)
  Ident scope;       // Local
  TypeRef type;      // Local

  // MapFor: for (vars) in atoms [on worker]; SeqFor: for vars[0] in begin..value
  std::vector<Ident> vars;
  bool parenVars = false;
  std::vector<MapAtom> atoms;
  Ident worker; // empty name: no `on`
  ExprPtr begin;

  ExprPtr cond; // If, Require
  std::vector<StmtPtr> body;     // Block, MapFor, SeqFor, If (then)
  bool hasElse = false;
  std::vector<StmtPtr> elseBody; // If
  Ident name;                    // Let
};

struct OpDecl {
  std::string name;
  SourceLoc loc, nameLoc;
  std::vector<Param> inputs;
  std::vector<Param> outputs;
  bool tupleOutputs = false;
  std::vector<ExprPtr> where;
  std::vector<StmtPtr> body;
};

struct KernelDecl {
  std::string name;
  SourceLoc loc, nameLoc;
  Ident op, target;
  std::vector<StmtPtr> body;
};

struct Decl {
  enum class Kind { Import, Op, Kernel, Export } kind;
  SourceLoc loc;
  std::string path;                   // Import (unquoted)
  Ident exported;                     // Export
  std::unique_ptr<OpDecl> op;         // Op
  std::unique_ptr<KernelDecl> kernel; // Kernel
};

struct File {
  int fileId = -1;
  std::vector<Decl> decls; // source order
};

} // namespace tk::ast
