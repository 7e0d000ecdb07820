import type { ConditionNode, Literal } from './parser.js';

/*
 * What a parsed condition means for one set of fields. A missing field is null. Types are not
 * coerced, with one exception: a field holding a plain decimal string ("149.99") compares as a
 * number against a number, so an agent cannot slip past `amount > 100` by quoting its amount.
 */

/** The value at a field path, or undefined when there is no such field. */
export type FieldResolver = (path: readonly string[]) => unknown;

const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Python's truthiness, which §4.6's "truthy" follows: empty strings, lists and objects are false. */
function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (typeof value === 'number' && Number.isNaN(value)) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.length <= 64 && DECIMAL.test(value)) return Number(value);
  return null;
}

function equals(field: unknown, literal: Literal): boolean {
  if (literal === null) return field === null || field === undefined;
  if (typeof literal === 'number') return asNumber(field) === literal;
  return field === literal;
}

function ordered(field: unknown, operator: string, literal: Literal): boolean {
  let a: number | string;
  let b: number | string;
  if (typeof literal === 'number') {
    const n = asNumber(field);
    if (n === null) return false;
    a = n;
    b = literal;
  } else if (typeof literal === 'string' && typeof field === 'string') {
    a = field;
    b = literal;
  } else {
    return false;
  }
  switch (operator) {
    case '>':
      return a > b;
    case '<':
      return a < b;
    case '>=':
      return a >= b;
    default:
      return a <= b;
  }
}

function contains(field: unknown, literal: Literal): boolean {
  if (typeof field === 'string') return typeof literal === 'string' && field.includes(literal);
  if (Array.isArray(field)) return field.some((item) => equals(item, literal));
  return false;
}

export function evaluateNode(node: ConditionNode, resolve: FieldResolver): boolean {
  switch (node.kind) {
    case 'or':
      return node.operands.some((operand) => evaluateNode(operand, resolve));
    case 'and':
      return node.operands.every((operand) => evaluateNode(operand, resolve));
    case 'not':
      return !evaluateNode(node.operand, resolve);
    case 'truthy':
      return isTruthy(resolve(node.path));
    case 'compare': {
      const field = resolve(node.path);
      if (node.operator === '==') return equals(field, node.value);
      if (node.operator === '!=') return !equals(field, node.value);
      return ordered(field, node.operator, node.value);
    }
    case 'contains':
      return contains(resolve(node.path), node.value);
    case 'matches': {
      const field = resolve(node.path);
      return typeof field === 'string' && node.pattern.test(field);
    }
    case 'in': {
      const field = resolve(node.path);
      return node.values.some((value) => equals(field, value));
    }
  }
}

/** Every field path a condition reads, dotted, in order of first use. */
export function fieldsOf(node: ConditionNode, into: Set<string> = new Set()): Set<string> {
  if ('operands' in node) {
    for (const operand of node.operands) fieldsOf(operand, into);
  } else if (node.kind === 'not') {
    fieldsOf(node.operand, into);
  } else {
    into.add(node.path.join('.'));
  }
  return into;
}
