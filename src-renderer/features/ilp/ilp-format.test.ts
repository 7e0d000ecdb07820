import { describe, expect, it } from 'vitest';
import { hop, hopsOf } from '../../testing/ilp-fixtures.js';
import { agentKindText, confidenceText, constitutionalText, gravestPrinciple, hopsText, principleText, statusText, statusTone, usdText } from './ilp-format.js';

describe('ILP page wording', () => {
  it('names each status code of the RFC with its reason, and shows another bare', () => {
    expect([200, 207, 400, 403, 409, 429, 451, 500, 503].map(statusText)).toEqual([
      '200 OK',
      '207 Multi-Status',
      '400 Bad Request',
      '403 Forbidden',
      '409 Conflict',
      '429 Budget Exceeded',
      '451 Unavailable For Legal Reasons',
      '500 Internal Error',
      '503 Service Unavailable',
    ]);
    expect(statusText(418)).toBe('418');
  });

  it('tones a status by its class and the severity on its edge', () => {
    expect(statusTone(200)).toBe('ok');
    expect(statusTone(207)).toBe('warning');
    expect(statusTone(200, 'warning')).toBe('warning');
    expect(statusTone(200, 'error')).toBe('bad');
    expect(statusTone(451, 'warning')).toBe('bad');
  });

  it('words costs, confidences, constitutional status, agent kinds and counts', () => {
    expect(usdText(0.0001)).toBe('$0.0001');
    expect(usdText(1.5)).toBe('$1.5000');
    expect(confidenceText(0.8912)).toBe('confidence 0.89');
    expect(confidenceText(null)).toBe('no confidence given');
    expect(constitutionalText(null)).toBe('not judged');
    expect(constitutionalText('VIOLATION')).toBe('VIOLATION');
    expect(['meta', 'specialist', 'remote'].map((k) => agentKindText(k as 'meta'))).toEqual(['meta-agent', 'specialist', 'remote agent']);
    expect([1, 2, 10_000].map(hopsText)).toEqual(['1 hop', '2 hops', '10,000 hops']);
  });

  it('finds the gravest principle a composition ran into', () => {
    expect(gravestPrinciple(hopsOf())).toBeNull();
    expect(principleText(hopsOf())).toBe('none');
    const hops = [hop('a', { principle: 'domain_boundary', severity: 'warning' }), hop('b', { principle: 'recursion_budget', severity: 'fatal' }), hop('c', { principle: 'safety', severity: 'error' })];
    expect(principleText(hops)).toBe('recursion_budget · fatal');
  });
});
