import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { diffHash } from './clients-service.js';
import { MAX_PREVIEW_LINES, unifiedDiff } from './diff.js';
import { findClient } from './locations.js';
import { loadConfig, planWrap } from './operations.js';
import { writePolicy } from './testing/fixtures.js';

const tempDir = useTempDirs('silas-diff-');
const claude = findClient('claude-desktop')!;
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };

/** A configuration far larger than anyone's: `count` servers, pretty-printed or one per line. */
function bigConfig(count: number, compact = false): string {
  const servers: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) servers[`server-${i}`] = { command: 'npx', args: ['-y', `@example/server-${i}`, '--root', `/srv/${'d'.repeat(300)}/${i}`], env: { LEVEL: 'info' } };
  if (!compact) return `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`;
  const lines = Object.entries(servers).map(([name, entry]) => `    ${JSON.stringify(name)}: ${JSON.stringify(entry)}`);
  return `{\n  "mcpServers": {\n${lines.join(',\n')}\n  }\n}\n`;
}

describe('previews of large configurations', () => {
  it('wraps 5,000 servers (a few MB) with a correct, bounded preview and a stable hash', () => {
    const dir = tempDir();
    const file = join(dir, 'claude_desktop_config.json');
    const text = bigConfig(5000);
    expect(text.length).toBeGreaterThan(2_000_000);
    writeFileSync(file, text);
    const options = { policy: writePolicy(dir), silasHome: join(dir, 'home'), homeInCommandLine: false, runtime };

    const plan = planWrap(loadConfig(claude, file), options);
    expect(plan.wrapped).toHaveLength(5000);
    const shown = plan.diff.split('\n');
    expect(shown.length).toBeLessThanOrEqual(MAX_PREVIEW_LINES + 1);
    expect(shown.at(-1)).toMatch(/^# \d+ more hunks not shown: a preview shows at most 2000 lines; applying writes every change$/);
    expect(plan.diff).toContain('+      "command": "/opt/node/bin/node",');

    // The preview is the start of the whole diff, and the whole diff turns the file into the plan.
    const whole = unifiedDiff(text, plan.after, file, `${file} (wrapped)`, Infinity);
    expect(whole.startsWith(shown.slice(0, -1).join('\n'))).toBe(true);
    expect(applyPatch(text, whole)).toBe(plan.after);

    const again = planWrap(loadConfig(claude, file), options);
    expect(diffHash(again.diff, again.config.bytes)).toBe(diffHash(plan.diff, plan.config.bytes));
  });

  it('stays correct when every server sits on one line (no long unchanged runs)', () => {
    const before = bigConfig(3000, true);
    const after = before.replace(/"command":"npx"/g, '"command":"/opt/node/bin/node"');
    const whole = unifiedDiff(before, after, 'a', 'b', Infinity);
    expect(applyPatch(before, whole)).toBe(after);
    expect(whole.split('\n').filter((line) => line.startsWith('-')).length).toBe(3000 + 1);
    expect(unifiedDiff(before, after, 'a', 'b').split('\n').length).toBeLessThanOrEqual(MAX_PREVIEW_LINES + 1);
  });

  it('still finds the changes in texts without any unique line to anchor on', () => {
    const before = `${'x\n'.repeat(50)}y\n${'x\n'.repeat(50)}`;
    const after = `${'x\n'.repeat(50)}z\n${'x\n'.repeat(50)}`;
    expect(unifiedDiff(before, after, 'a', 'b')).toBe(['--- a', '+++ b', '@@ -48,7 +48,7 @@', ' x', ' x', ' x', '-y', '+z', ' x', ' x', ' x'].join('\n'));
  });
});
