import { describe, expect, it } from 'vitest';
import { hop, hopsOf, QUERY_HEADER } from '../../src-shared/schemas/testing/ilp-compositions.js';
import { constitutionalHeaderOf, headerDraftProblem, queryHop, replayDraftOf } from './ilp-header.js';

describe('the replay form\'s Constitutional-Header', () => {
  it('is read from the query hop\'s request, two-space indented', () => {
    const hops = hopsOf();
    expect(queryHop(hops)?.agent).toBe('meta-agent');
    expect(replayDraftOf(hops)).toBe(JSON.stringify(QUERY_HEADER, null, 2));
  });

  it('takes the first hop when none lacks a parent, and {} when the request carries no header', () => {
    expect(queryHop([hop('a'), hop('b')])?.id).toBe('a');
    expect(queryHop([])).toBeNull();
    expect(replayDraftOf([hop('a', { parent: null, request_text: 'THINK /insight ILP/1.0\nAttention-Enabled: true\n\n{}' })])).toBe('{}');
  });

  it('reads a header whose JSON runs over several lines, and stops at the next field or the body', () => {
    const text = 'THINK /insight ILP/1.0\nconstitutional-header: {\n  "domain": "finance",\n  "depth": 2\n}\nAttention-Enabled: true\n\n{"query": "x"}';
    expect(JSON.parse(constitutionalHeaderOf(text)!)).toEqual({ domain: 'finance', depth: 2 });
    expect(constitutionalHeaderOf('THINK / ILP/1.0\nConstitutional-Header: {"domain":\nAttention-Enabled: true\n\n')).toBe('{"domain":');
    // A header line in the body is the body's text, not a header.
    expect(constitutionalHeaderOf('THINK / ILP/1.0\nA: b\n\nConstitutional-Header: {}')).toBeNull();
  });

  it('is a JSON object or says what is wrong, as the person types', () => {
    expect(headerDraftProblem('{"max_budget_usd": 0.0001}')).toBeNull();
    expect(headerDraftProblem('{}')).toBeNull();
    expect(headerDraftProblem('')).toMatch(/^Type the Constitutional-Header as a JSON object/);
    expect(headerDraftProblem('{"max_budget_usd": ')).toMatch(/^Not JSON yet: /);
    expect(headerDraftProblem('[1]')).toBe('The Constitutional-Header is a JSON object of its fields, not an array.');
    expect(headerDraftProblem('null')).toBe('The Constitutional-Header is a JSON object of its fields, not null.');
    expect(headerDraftProblem('0.5')).toBe('The Constitutional-Header is a JSON object of its fields, not a number.');
  });
});
