// Every type a library function takes or returns is exported from the package entry, so a caller
// can name it (`AnalyzeEvent` for an `onEvent` handler, the options and result types…). Read with
// the TypeScript compiler from src/index.ts: for each exported function, the named types of its
// parameters and return value, and of their properties (two levels: `options.onEvent`'s event).
import { expect } from 'chai';
import { join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/wine.js';

/** `#field` and `private field`: not part of what a caller sees. */
function isPrivate(property: ts.Symbol): boolean {
  if (property.getName().startsWith('#')) return true;
  return (
    property.declarations?.some(
      (d) => (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private) !== 0,
    ) === true
  );
}

function missingTypes(): string[] {
  const entry = join(REPO_ROOT, 'src', 'index.ts');
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry)!;
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const exported = new Set(exports.map(resolve));
  // `export * as stackwalk`: its members are reachable as stackwalk.Name.
  for (const symbol of exports) {
    const target = resolve(symbol);
    if (target.flags & ts.SymbolFlags.ValueModule) {
      for (const member of checker.getExportsOfModule(target)) exported.add(resolve(member));
    }
  }
  const ours = (symbol: ts.Symbol | undefined): symbol is ts.Symbol =>
    symbol?.declarations?.some((d) =>
      d.getSourceFile().fileName.startsWith(join(REPO_ROOT, 'src')),
    ) === true;
  const missing = new Map<string, string>();
  const seen = new Set<ts.Type>();

  function visit(type: ts.Type, where: string, depth: number): void {
    if (seen.has(type) || depth > 3) return;
    seen.add(type);
    const named = type.aliasSymbol ?? type.getSymbol();
    const isNamed =
      named !== undefined &&
      (type.aliasSymbol !== undefined ||
        (named.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) !== 0);
    if (isNamed && ours(named) && !exported.has(named)) {
      const file = named.declarations![0]!.getSourceFile().fileName.slice(REPO_ROOT.length + 1);
      missing.set(named.getName(), `${file}, via ${where}`);
    }
    if (type.isUnionOrIntersection()) {
      for (const part of type.types) visit(part, where, depth);
      return;
    }
    for (const argument of checker.getTypeArguments(type as ts.TypeReference) ?? []) {
      visit(argument, where, depth);
    }
    for (const alias of type.aliasTypeArguments ?? []) visit(alias, where, depth);
    for (const signature of type.getCallSignatures()) visitSignature(signature, where, depth + 1);
    if (ours(named) || type.aliasSymbol === undefined) {
      for (const property of type.getProperties()) {
        if (!ours(property) || isPrivate(property)) continue;
        const decl = property.valueDeclaration ?? property.declarations?.[0];
        if (decl === undefined) continue;
        visit(
          checker.getTypeOfSymbolAtLocation(property, decl),
          `${where}.${property.getName()}`,
          depth + 1,
        );
      }
    }
  }

  function visitSignature(signature: ts.Signature, where: string, depth: number): void {
    for (const parameter of signature.getParameters()) {
      const decl = parameter.valueDeclaration;
      if (decl)
        visit(
          checker.getTypeOfSymbolAtLocation(parameter, decl),
          `${where}(${parameter.getName()})`,
          depth,
        );
    }
    visit(signature.getReturnType(), `${where}()`, depth);
  }

  for (const symbol of exports) {
    const target = resolve(symbol);
    if (!(target.flags & ts.SymbolFlags.Function)) continue;
    const type = checker.getTypeOfSymbol(target);
    for (const signature of type.getCallSignatures())
      visitSignature(signature, symbol.getName(), 0);
  }
  return [...missing].map(([name, where]) => `${name} (${where})`).sort();
}

describe('library entry: exported types', function () {
  this.timeout(120_000);
  it('exports every named type an exported function takes or returns', () => {
    expect(missingTypes()).to.deep.equal([]);
  });
});
