import type { ContextItem } from '../../../src-shared/silas/context.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import { lowerTaint } from '../../../src-shared/silas/memory.js';
import type { StreamMessage, StreamSender } from '../../../src-shared/schemas/stream.js';

/** §5.12: the least trusted of several taints, by the memory store's one rule (`lowerTaint`). */
export function taintOrder(taints: readonly TaintLevel[]): TaintLevel {
  return taints.reduce(lowerTaint, 'owner');
}

export function messageOf(input: { id: string; sender: StreamSender; text: string; taint: TaintLevel; turn: number; at: Date }): StreamMessage {
  return { id: input.id, sender: input.sender, text: input.text, taint: input.taint, turn: input.turn, timestamp: input.at.toISOString() };
}

const PERSON = /^\[(?:owner|auth|external)\] [^:\n]{1,200}: /;

/**
 * A chronicle item as a channel shows it again after a reload or a restart. The chronicle keeps
 * §5.1's formats (`[taint] sender: text`, `Silas: text`, `[SYSTEM] text`); the prefix is taken off.
 */
export function historyMessage(item: ContextItem): StreamMessage | null {
  if (item.kind !== 'message') return null;
  let sender: StreamSender;
  let text = item.content;
  if (item.source.startsWith('channel:')) {
    sender = 'person';
    text = text.replace(PERSON, '');
  } else if (item.source.startsWith('agent:')) {
    sender = 'silas';
    text = text.replace(/^Silas: /, '');
  } else {
    // A runtime line (`[SYSTEM] …`), or what the executor wrote (`[external] executor: …`, taint external).
    sender = 'system';
    text = text.replace(/^\[SYSTEM\] /, '').replace(/^\[external\] executor: /, '');
  }
  return { id: item.ctx_id, sender, text, taint: item.taint, turn: item.turn_number, timestamp: item.created_at };
}
