// The host's layers as one ordered rule (as VS Code's code-layering check does it): a module in
// src-main may import from its own layer or any layer below, never above. docs/architecture.md
// "Folders" explains each layer; a new folder must be placed here before it can be imported.
import path from 'node:path';

/** Lowest first. Folders in one entry are one layer and may import each other. */
export const LAYERS = [
  ['system'],
  ['db'],
  ['work'],
  ['library'],
  ['host'],
  ['gates', 'policy', 'settings', 'runs', 'models', 'transcripts', 'speakers'],
  ['arbiter'],
  // pools/ sits with the engines: its PoolRuntime hands a job to a worker and returns an engine outcome.
  // units/ is the one pipeline of a unit (pick → claim → prepare → launch → follow → settle) over them.
  ['engines', 'units', 'dispatch', 'digest', 'worker', 'pools'],
  ['explain', 'sim', 'bench'],
  ['api'],
  ['shells', 'cli', 'preload'],
  ['app'],
];

const LAYER_OF = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i])));
/** A file directly in src-main (the Electron entry, index.ts) sits with the wiring at the top. */
const TOP = LAYERS.length - 1;

function folderOf(file, root) {
  const rel = path.relative(path.join(root, 'src-main'), file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  return parts.length === 1 ? '(src-main)' : parts[0];
}

function layerOf(folder) {
  return folder === '(src-main)' ? TOP : LAYER_OF.get(folder);
}

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'src-main imports point down the ordered layers only (docs/architecture.md "Folders")' },
    schema: [],
    messages: {
      upward: '{{from}} (layer {{fromLayer}}) must not import {{to}} (layer {{toLayer}}): imports point down the layers in eslint-rules/layers.js.',
      unplaced: 'src-main/{{folder}} is in no layer: add it to LAYERS in eslint-rules/layers.js.',
    },
  },
  create(context) {
    const file = context.filename;
    const root = context.cwd;
    const from = folderOf(file, root);
    if (from === null) return {};
    const fromLayer = layerOf(from);
    const check = (node, specifier) => {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const to = folderOf(path.resolve(path.dirname(file), specifier), root);
      if (to === null || to === from) return;
      const toLayer = layerOf(to);
      if (fromLayer === undefined) return context.report({ node, messageId: 'unplaced', data: { folder: from } });
      if (toLayer === undefined) return context.report({ node, messageId: 'unplaced', data: { folder: to } });
      if (toLayer > fromLayer) context.report({ node, messageId: 'upward', data: { from, to, fromLayer, toLayer } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => { if (node.source) check(node.source, node.source.value); },
      ImportExpression: (node) => { if (node.source.type === 'Literal') check(node.source, node.source.value); },
    };
  },
};

export default { rules: { layers: layersRule } };
