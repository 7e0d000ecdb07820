import type { ApprovalTerminalSource } from '../commands/approval-terminal.js';

/**
 * The person's side of a terminal for `--approve-here` in tests: answers each prompt with the
 * next line of `typed` (null once it runs out, as when the terminal closes), and keeps the prompts.
 */
export function typedAtTerminal(typed: string): ApprovalTerminalSource & { prompts: string[] } {
  const lines = typed.length === 0 ? [] : typed.replace(/\n$/, '').split('\n');
  const prompts: string[] = [];
  const source = () => ({
    ask: (prompt: string) => {
      prompts.push(prompt);
      return Promise.resolve(lines.length > 0 ? lines.shift()! : null);
    },
  });
  return Object.assign(source, { prompts });
}
