import { describe, expect, it } from 'vitest';
import type { ToolCallApprovalRequest } from '../../../src-shared/schemas/approval.js';
import { cardText, shownRule, toolCallNotification, whyAsked } from './tool-call-why.js';

const request = (extra: Partial<ToolCallApprovalRequest> = {}): ToolCallApprovalRequest => ({
  server: 'files',
  tool: 'write_file',
  args: { path: '/w/a', mode: 'x', owner: 'me', group: 'g' },
  display: { path: '/w/a', mode: 'x', owner: 'me', group: 'g' },
  requestId: 1,
  sessionId: 's',
  rule: 'write_file',
  reason: 'Tool requires interactive approval',
  policyName: 'workstation',
  timeoutMs: 60_000,
  ...extra,
});

describe('cardText', () => {
  it('removes control and bidirectional characters and clips with an ellipsis, never inside a surrogate pair', () => {
    expect(cardText('a\u0000b\u001b[31m\u202ec\u0085d', 100)).toBe('a b [31m c d');
    expect(cardText('x'.repeat(20), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(cardText(`${'x'.repeat(8)}😀`, 10)).toBe(`${'x'.repeat(8)}😀`);
    expect(cardText(`${'x'.repeat(8)}😀y`, 10)).toBe(`${'x'.repeat(8)}…`);
  });
});

describe('whyAsked', () => {
  it('keeps the proxy\'s reason when it sends no rule (an older proxy)', () => {
    expect(whyAsked(request())).toBe('Tool requires interactive approval');
  });

  it('names at most three argument constraints and counts the rest', () => {
    const args = ['path', 'mode', 'owner', 'group'].map((name) => ({ name, pattern: '.' }));
    expect(whyAsked(request({ askedBy: { path: 'spec.tool_rules[2]', tool: 'write_file', args } }))).toBe(
      'Rule spec.tool_rules[2] "ask: write_file" of policy "workstation" asks you before every write_file call its allow_args permit; here path "/w/a" matches ., mode "x" matches ., owner "me" matches . and 1 more.',
    );
  });

  it('strips the invisible characters a hostile policy name could hide text with', () => {
    // Zero-width space and joiner, line separator, word joiner, BOM, Arabic letter mark.
    expect(cardText('safe\u200bpolicy\u200d\u2028x\u2060y\ufeffz\u061c!', 100)).toBe('safe policy x y z !');
  });

  it('strips what a hostile policy wrote into its file name, tool and patterns', () => {
    const askedBy = { policyFile: '/p/\u202eevil\n.yaml', path: 'spec.tool_rules[0]', tool: 'write\u0007_file', args: [{ name: 'pa\tth', pattern: '^/\u0000' }] };
    const why = whyAsked(request({ askedBy }));
    // eslint-disable-next-line no-control-regex -- the test looks for them
    expect(why).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(shownRule(askedBy)).toEqual({ policyFile: '/p/ evil .yaml', path: 'spec.tool_rules[0]', tool: 'write _file', args: [{ name: 'pa th', pattern: '^/' }] });
  });
});

describe('toolCallNotification', () => {
  it('asks about the tool on its server and says the risk and the rationale', () => {
    expect(toolCallNotification(request(), 'medium', 'Because.')).toEqual({ title: 'Approve write_file on files?', body: 'Medium risk. Because.' });
  });
});
