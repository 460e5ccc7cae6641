// Lint rules: typed typescript-eslint plus the layer boundaries (README.md, "How it is built").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readdirSync } from 'node:fs';

// The dialect names are the dialect folders' names: a new debugger's folder joins the rule below.
const dialectNames = readdirSync(new URL('src/engine/dialects/', import.meta.url), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory() && entry.name !== 'common')
  .map((entry) => entry.name)
  .join('|');

// No spread of an array into a call's arguments in src: every element becomes an argument on the
// stack, so `lines.push(...formatStacks(dump))` over 20,000 threads died with "Maximum call stack
// size exceeded" (issue 22). Loop, concat, or index instead; spreading into an array literal
// (`[...a, ...b]`) is fine.
// Which host the harness runs on is decided in src/platform/ only (hostKind, isWindowsHost and the
// seam's functions): no comparison with node's 'win32' elsewhere.
const noHostLiteral = {
  selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value='win32']",
  message:
    "Ask the platform seam (src/platform/index.ts: isWindowsHost, or a function for what differs) instead of comparing with 'win32'.",
};
const noSpreadArguments = {
  selector: 'CallExpression > SpreadElement, NewExpression > SpreadElement',
  message:
    'No spread into call arguments in src (unbounded arrays overflow the stack): loop, concat or pass the array.',
};

// No function literal assigned straight to a property in src (`this.#warn = (m) => …`,
// `index.lookup = function …`): V8's parser marks such a literal "pretenure" so that its closure
// is made in old space (CheckAssigningFunctionLiteralToProperty in
// https://chromium.googlesource.com/v8/v8/+/refs/heads/main/src/parsing/parser.h, meant for
// methods set up once). Made per dump, an old closure is a root for every scavenge until the next
// full GC, and its context holds the dump's whole state (the object it was stored on included): in
// one `analyze` of the peer corpus x20 that kept ~15% of everything allocated alive through each
// scavenge, which copied and promoted it (`node --trace-gc-nvp`: new_space_survived, promoted).
// Assign the literal to a const first, then the const to the property: same closure, young.
const noFunctionLiteralIntoProperty = {
  selector:
    'AssignmentExpression[left.type="MemberExpression"] > :matches(ArrowFunctionExpression, FunctionExpression).right',
  message:
    'Assign the function to a const first, then the const to the property: V8 makes a literal assigned straight to a property in old space, where it keeps its context alive until a full GC (see eslint.config.js).',
};

// No getter or setter in an object literal in src, nor one given to Object.defineProperty: V8
// makes such an accessor's closure so that it too keeps its context through every scavenge until a
// full GC (`node --trace-gc-nvp`: a factory returning `{ m, get n() { return m.size } }` kept 46%
// of what it allocated; with defineProperty 52%; a class's getter 0%). A class's getter lives on
// its prototype and closes over nothing.
const noLiteralAccessor = {
  selector:
    'ObjectExpression > Property[kind=/^(get|set)$/], CallExpression[callee.property.name="defineProperty"] ObjectExpression > Property[key.name=/^(get|set)$/]',
  message:
    'No getter or setter in an object literal (or defineProperty): V8 keeps its closure and context alive until a full GC; use a class (see eslint.config.js).',
};

// No `Record<…>` started as `{}` in src: its keys often come from input (handle type names,
// signatures, module and register names), and a `{}` answers `constructor`, `toString` and
// `__proto__` from Object.prototype (issue 30: a handle type `constructor` failed a dump). Use
// dict() (src/common/dict.ts, a null-prototype object) or a Map.
const noPlainRecord = {
  selector:
    'VariableDeclarator[init.type="ObjectExpression"][init.properties.length=0][id.typeAnnotation.typeAnnotation.typeName.name="Record"], PropertyDefinition[value.type="ObjectExpression"][value.properties.length=0][typeAnnotation.typeAnnotation.typeName.name="Record"]',
  message:
    'A Record started as {} inherits Object.prototype (keys like constructor, __proto__): use dict() from src/common/dict.ts or a Map.',
};

const layer = (from, forbidden) => ({
  files: [`src/${from}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((name) => ({
          group: [`**/${name}/**`, `../${name}`, `../../${name}`],
          message: `src/${from} must not import src/${name}: imports point down only.`,
        })),
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'build/**', '.wine/**', 'out/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['bin/**/*.js', 'eslint.config.js', 'test/windows/scripts/*.js'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly' } },
  },
  // The host platform is one seam (src/platform/: one folder per host): nothing else asks which
  // OS it runs on, so the Windows tier tests one place and a new host is one more folder.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/platform/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'platform',
          message:
            'Ask the platform seam (src/platform/index.ts: hostKind, isWindowsHost, currentPlatform) instead of process.platform.',
        },
      ],
    },
  },
  // Printing is the CLI's job; tests, benches and dev scripts may print too.
  { files: ['src/cli/**', 'test/**', 'bench/**', 'scripts/**'], rules: { 'no-console': 'off' } },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  // Ground types shared by the dump side (rust-minidump's minidump-common): they import nothing.
  layer('common', [
    'cli',
    'workflows',
    'report',
    'engine',
    'pty',
    'parsers',
    'minidump',
    'stackwalk',
    'symbols',
    'processor',
  ]),
  layer('parsers', ['cli', 'workflows', 'report', 'engine', 'pty', 'minidump', 'processor']),
  layer('minidump', ['cli', 'workflows', 'report', 'engine', 'pty', 'parsers']),
  layer('stackwalk', [
    'cli',
    'workflows',
    'report',
    'engine',
    'pty',
    'parsers',
    'minidump',
    'symbols',
    'processor',
  ]),
  // The dump processor (rust-minidump's minidump-processor): reads a dump through the minidump
  // reader, walks it with stackwalk, names it through symbols/supplier; the jobs sit above it.
  layer('processor', ['cli', 'workflows', 'report', 'engine', 'pty', 'parsers']),
  layer('pty', ['cli', 'workflows', 'report', 'engine', 'parsers', 'minidump']),
  layer('engine', ['cli', 'workflows', 'report']),
  layer('report', ['cli', 'workflows']),
  layer('workflows', ['cli', 'queue']),
  // The job queue (BullMQ producer/collector and worker loop) wraps the analyze workflow: above
  // workflows, below cli.
  layer('queue', ['cli']),
  // One boundary per debugger: only src/engine/dialects/ may decide anything by a dialect's name
  // (everything else asks the Dialect: its abilities, commands and parsers). And one family of
  // typed errors (src/errors.ts): no bare `throw new Error` in src.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/engine/dialects/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(${dialectNames})$/], SwitchCase > Literal.test[value=/^(${dialectNames})$/]`,
          message:
            'Compare no dialect name outside src/engine/dialects/: give the Dialect an ability or a command instead (getDialect(name)).',
        },
        {
          selector: "ThrowStatement > NewExpression[callee.name='Error']",
          message: 'Throw one of the typed errors of src/errors.ts (InternalError for a bug).',
        },
        noHostLiteral,
        noSpreadArguments,
        noFunctionLiteralIntoProperty,
        noLiteralAccessor,
        noPlainRecord,
      ],
    },
  },
  {
    files: ['src/engine/dialects/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        noHostLiteral,
        noSpreadArguments,
        noFunctionLiteralIntoProperty,
        noLiteralAccessor,
        noPlainRecord,
      ],
    },
  },
  // The symbols leaf reads through a ByteSource and downloads through a fetch it is handed. Its
  // supplier (src/symbols/supplier/, breakpad-symbols' SymbolSupplier) is where files are found
  // on disk and downloaded: I/O allowed there, fetch still handed in.
  {
    files: ['src/symbols/**/*.ts'],
    ignores: ['src/symbols/supplier/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises', 'node:http', 'node:https', 'node:net'].map(
            (name) => ({ name, message: 'src/symbols is a leaf: I/O is handed in.' }),
          ),
          patterns: [
            'cli',
            'workflows',
            'report',
            'engine',
            'pty',
            'parsers',
            'stackwalk',
            'processor',
            'supplier',
          ].map((name) => ({
            group: [`**/${name}/**`, `../${name}`, `../../${name}`, `./${name}/**`],
            message: `src/symbols must not import src/${name}: imports point down only (README.md, "How it is built").`,
          })),
        },
      ],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'fetch is handed in.' }],
    },
  },
  {
    files: ['src/symbols/supplier/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['cli', 'workflows', 'report', 'engine', 'pty', 'parsers', 'processor'].map(
            (name) => ({
              group: [`**/${name}/**`, `../${name}`, `../../${name}`],
              message: `src/symbols/supplier must not import src/${name}: imports point down only.`,
            }),
          ),
        },
      ],
      'no-restricted-globals': ['error', { name: 'fetch', message: 'fetch is handed in.' }],
    },
  },
);
