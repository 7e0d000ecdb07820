import { describe, expect, it } from 'vitest';
import { COMMANDS } from './registry.js';

describe('command registry', () => {
  it('names each command once', () => {
    const names = COMMANDS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
  });

  // Help prints the registry's copy without loading modules; it must say what the module says.
  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))('%s loads a command with the same name and summary', async (_name, entry) => {
    const command = await entry.load();
    expect({ name: command.name, summary: command.summary }).toEqual({ name: entry.name, summary: entry.summary });
    expect(command.usage).toMatch(new RegExp(`Usage: silas ${entry.name}`));
  });
});
