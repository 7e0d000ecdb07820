import { describe, expect, it } from 'vitest';
import { MessageFieldStreamer } from './message-streamer.js';

function streamAll(json: string, size: number): string {
  const streamer = new MessageFieldStreamer();
  let out = '';
  for (let i = 0; i < json.length; i += size) out += streamer.push(json.slice(i, i + size));
  return out;
}

describe('MessageFieldStreamer', () => {
  const answer = {
    route: 'direct',
    reason: 'a "message": "decoy" inside another string',
    response: { message: 'Hello "there" \\ café 😀\nline two', memory_queries: [] },
    interaction_register: 'status',
  };
  const json = JSON.stringify(answer);

  it('emits exactly the decoded message, whatever the chunking (escapes and surrogate pairs cut anywhere)', () => {
    for (const size of [1, 2, 3, 5, 7, 13, json.length]) expect(streamAll(json, size)).toBe(answer.response.message);
    const escaped = JSON.stringify(answer).replace('😀', '\\ud83d\\ude00');
    for (const size of [1, 4, 9]) expect(streamAll(escaped, size)).toBe(answer.response.message);
  });

  it('ignores a key named message whose value is not a string, and a "message" that is a value', () => {
    expect(streamAll('{"message": null, "x": "message", "y": 1}', 3)).toBe('');
    expect(streamAll('{"note": "message", "message": "real"}', 2)).toBe('real');
  });

  it('emits nothing from text that is not JSON, and stops at the closing quote', () => {
    expect(streamAll('Sure! Here is my answer.', 4)).toBe('');
    expect(streamAll('{"message": "one", "message": "two"}', 1)).toBe('one');
  });
});
