import { evaluateNode, fieldsOf, type FieldResolver } from './evaluate.js';
import { ConditionSyntaxError } from './lexer.js';
import { parseCondition, type ConditionNode, type ParseLimits } from './parser.js';

/*
 * The §4.6 condition language: compile once when a card is loaded, evaluate per trace. Input is
 * bounded before it is read (length, nesting, list size, pattern size), so a hostile card costs
 * at most a few thousand characters of work and a clear error.
 */

export type { FieldResolver } from './evaluate.js';
export { traceScope } from './scope.js';

export interface ConditionLimits extends ParseLimits {
  maxLength: number;
}

export const CONDITION_LIMITS: ConditionLimits = { maxLength: 4096, maxDepth: 32, maxPatternLength: 1024, maxListItems: 256 };

export interface CompiledCondition {
  readonly source: string;
  readonly ast: ConditionNode;
  /** The field paths the condition reads, dotted. */
  readonly fields: readonly string[];
  evaluate(resolve: FieldResolver): boolean;
}

export type CompileResult = { ok: true; condition: CompiledCondition } | { ok: false; error: string; position: number };

export function compileCondition(source: string, limits: ConditionLimits = CONDITION_LIMITS): CompileResult {
  if (source.length > limits.maxLength) return { ok: false, error: `the condition is ${source.length} characters long; the maximum is ${limits.maxLength}`, position: limits.maxLength };
  if (source.trim() === '') return { ok: false, error: 'the condition is empty', position: 0 };
  try {
    const ast = parseCondition(source, limits);
    return { ok: true, condition: { source, ast, fields: [...fieldsOf(ast)], evaluate: (resolve) => evaluateNode(ast, resolve) } };
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return { ok: false, error: error.message, position: error.position };
    throw error;
  }
}

/** Why a condition does not compile, or null: the checker card validation takes. */
export function conditionProblem(source: string): string | null {
  const result = compileCondition(source);
  return result.ok ? null : result.error;
}
