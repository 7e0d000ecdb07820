import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import { locateYamlPath, nodeStart, yamlPosition } from './positions.js';

const text = ['a:', '  b: &shared', '    c: 1', '  list:', '    - x', '    - {y: 2}', 'd: *shared', ''].join('\n');
const lineCounter = new LineCounter();
const doc = parseDocument(text, { lineCounter });
const at = (place: unknown) => yamlPosition(lineCounter, place);

describe('locateYamlPath', () => {
  it('finds a key and its value', () => {
    const location = locateYamlPath(doc, ['a', 'b', 'c']);
    expect(location.depth).toBe(3);
    expect(at(location.key)).toEqual({ line: 3, column: 5 });
    expect(at(location.node)).toEqual({ line: 3, column: 8 });
  });

  it('walks list items by index', () => {
    const location = locateYamlPath(doc, ['a', 'list', 1, 'y']);
    expect(location.depth).toBe(4);
    expect(at(location.node)).toEqual({ line: 6, column: 11 });
    expect(at(locateYamlPath(doc, ['a', 'list', 1]).node)).toEqual({ line: 6, column: 7 });
  });

  it('follows aliases, keeping the alias as the node written there', () => {
    const through = locateYamlPath(doc, ['d', 'c']);
    expect(through.depth).toBe(2);
    expect(at(through.node)).toEqual({ line: 3, column: 8 });
    expect(at(locateYamlPath(doc, ['d']).node)).toEqual({ line: 7, column: 4 });
  });

  it('stops at the deepest part that exists', () => {
    const missing = locateYamlPath(doc, ['a', 'b', 'nope', 'deeper']);
    expect(missing.depth).toBe(2);
    expect(at(missing.key)).toEqual({ line: 2, column: 3 });
    expect(locateYamlPath(doc, ['a', 'list', 5]).depth).toBe(2);
    expect(locateYamlPath(doc, []).depth).toBe(0);
    expect(nodeStart(locateYamlPath(doc, []).node)).toBe(0);
  });
});
