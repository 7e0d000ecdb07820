import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/*
 * Where a path of keys and indices (a zod issue path, a field path) sits in a parsed YAML
 * document. The policy loader, the policy editor and the plan parser all place their messages
 * through this one walk, so the same path points at the same line everywhere. Pure: `yaml` is a
 * plain package, usable in the renderer (docs/architecture.md §3).
 */

export type YamlPath = ReadonlyArray<PropertyKey>;

export interface YamlLocation {
  /** How many segments of the path exist in the document: path.length when all of it does. */
  depth: number;
  /** The key node of the last segment found; null at the root and for a sequence item. */
  key: unknown;
  /** The node of the last segment found as written (an alias stays an alias); the root at depth 0. */
  node: unknown;
  /** `node` with aliases followed. */
  value: unknown;
}

/** Follows aliases to the node they name; null for a dangling or absurdly chained alias. */
function resolveAlias(doc: Document, node: unknown): unknown {
  let current = node;
  for (let hops = 0; isAlias(current); hops++) {
    if (hops > 100) return null;
    current = current.resolve(doc) ?? null;
  }
  return current;
}

/**
 * Walks `path` down from the root, through aliases, as far as the document goes. A mapping key
 * matches a segment by its text, as `toJS` turns keys into object keys.
 */
export function locateYamlPath(doc: Document, path: YamlPath): YamlLocation {
  let location: YamlLocation = { depth: 0, key: null, node: doc.contents, value: resolveAlias(doc, doc.contents) };
  for (const segment of path) {
    const parent = location.value;
    let next: { key: unknown; node: unknown } | null = null;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => {
        const key = resolveAlias(doc, item.key);
        return isScalar(key) && String(key.value) === String(segment);
      });
      if (pair) next = { key: pair.key, node: pair.value };
    } else if (isSeq(parent) && typeof segment === 'number' && segment < parent.items.length) {
      next = { key: null, node: parent.items[segment] };
    }
    if (!next) break;
    location = { depth: location.depth + 1, key: next.key, node: next.node, value: resolveAlias(doc, next.node) };
  }
  return location;
}

/** The start offset of a node, or undefined for a node without a range (or no node). */
export function nodeStart(node: unknown): number | undefined {
  const range = (node as { range?: unknown } | null)?.range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : undefined;
}

/** 1-based line and column of a node's start or of an offset. */
export function yamlPosition(lineCounter: LineCounter, place: unknown): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(typeof place === 'number' ? place : (nodeStart(place) ?? 0));
  return { line, column: col };
}
