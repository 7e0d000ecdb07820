import { describe, expect, it } from 'vitest';
import { contextView } from '../testing/stream-context-fixtures.js';
import { OTHER_SCOPE, SCOPE } from '../testing/stream-fixtures.js';
import { contextFailed, contextLoaded, contextLoading, contextShown, initialStreamContext, subscriptionPending, subscriptionSettled } from './stream-context.js';

describe('stream context reducers', () => {
  it('is hidden and empty until the person opens it', () => {
    expect(initialStreamContext).toEqual({ shown: false, loading: false, view: null, error: null, subscribing: false, subscriptionError: null });
    expect(contextShown(initialStreamContext, true).shown).toBe(true);
  });

  it('keeps the view of the same conversation while it is read again, and clears the last error once read', () => {
    const view = contextView();
    const failed = contextFailed(contextLoaded(contextLoading(initialStreamContext, SCOPE), view), 'gone (E_UNAVAILABLE)');
    expect(failed).toMatchObject({ loading: false, view, error: 'gone (E_UNAVAILABLE)' });
    const again = contextLoading(failed, SCOPE);
    expect(again).toMatchObject({ loading: true, view });
    expect(contextLoaded(again, view).error).toBeNull();
  });

  it("never shows another conversation's context as this one's", () => {
    const read = contextLoaded(initialStreamContext, contextView());
    expect(contextLoading(read, OTHER_SCOPE).view).toBeNull();
  });

  it('a subscription change clears the last refusal while it is on its way, and keeps the next one', () => {
    const refused = subscriptionSettled(subscriptionPending(initialStreamContext), 'target must not be empty (E_CONTEXT_INVALID)');
    expect(refused).toMatchObject({ subscribing: false, subscriptionError: 'target must not be empty (E_CONTEXT_INVALID)' });
    expect(subscriptionPending(refused)).toMatchObject({ subscribing: true, subscriptionError: null });
    expect(subscriptionSettled(subscriptionPending(refused), null).subscriptionError).toBeNull();
  });
});
