import { describe, expect, it } from 'vitest';
import { COMMANDS } from './registry.js';

describe('command registry', () => {
  it('names each command once', () => {
    const names = COMMANDS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
  });

  // Help prints the registry's summaries without loading modules; each entry must load its own command.
  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))('%s loads the command of that name', async (_name, entry) => {
    const command = await entry.load();
    expect(command.name).toBe(entry.name);
    expect(entry.summary.length).toBeGreaterThan(10);
    expect(command.usage).toMatch(new RegExp(`Usage: silas ${entry.name}`));
  });
});
