// The ESLint side of the layer table (layers.js, docs/architecture.md §3): every import, export-from,
// dynamic import() and `import('…')` type of a file under src-main/ is resolved and checked
// against the table. Registered in eslint.config.js as `silas/layers`.
import { checkImport } from './layers.js';
import { repoPath } from './resolve.js';

/** @type {import('eslint').Rule.RuleModule} */
const layerRule = {
  meta: {
    type: 'problem',
    docs: { description: 'src-main/ folders import only what the layer table of docs/architecture.md §3 allows' },
    schema: [],
  },
  create(context) {
    const file = repoPath(context.filename);
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const problem = checkImport(file, node.value);
      if (problem !== null) context.report({ node, message: problem });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export const layersPlugin = { rules: { layers: layerRule } };
