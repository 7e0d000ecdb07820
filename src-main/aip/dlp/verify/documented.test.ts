import { describe, expect, it } from 'vitest';
import { passesNotExample } from './documented.js';

describe('not_example: a documented sample is not a secret', () => {
  it.each(['AKIAEXAMPLEKEY12345X', 'abcdEXAMPLEKEYabcd1234', 'sk_test_XXXXXXXXXXXXXXXX', 'token-sample-0001', 'dummy_password_1'])('refuses %s', (match) => {
    expect(passesNotExample(match)).toBe(false);
  });
  it.each(['AKIA2E0A8F3B244C9986', 'Zq3vN8pL1xW7rT4yU6iO0aS2dF5gH9jK', 'ghp_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ'])('passes %s', (match) => {
    expect(passesNotExample(match)).toBe(true);
  });
});
