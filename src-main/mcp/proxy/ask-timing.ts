/*
 * How long an ask waits, and how the agent's request is kept alive meanwhile (docs/mcp-proxy.md
 * "Asks follow the agent"). The MCP SDK's client gives a request 60 s (DEFAULT_REQUEST_TIMEOUT_MSEC)
 * unless told otherwise, then answers its caller -32001 itself and cancels: an ask that waited
 * exactly as long raced it, and the agent never saw the specified -32005. So the proxy answers a
 * margin before that default, and, when the request carries a `progressToken`, sends
 * `notifications/progress` well inside any client timeout, which a client that asked for it
 * (`resetTimeoutOnProgress`) counts as the request being alive.
 */

/** `--ask-timeout`'s default: 10 s before the MCP SDK's default request timeout of 60 s. */
export const DEFAULT_ASK_TIMEOUT_S = 50;

/**
 * How long an ask whose request carries a `progressToken` waits (`--ask-timeout-with-progress`):
 * the client hears progress every ASK_PROGRESS_INTERVAL_MS, so its own timeout does not run out
 * under the person, and a person who steps away for a few minutes still finds the card.
 */
export const DEFAULT_PROGRESS_ASK_TIMEOUT_S = 600;

/** Review keeps a question at most an hour (`approvals.request`'s `timeoutMs`), so no ask waits longer. */
export const MAX_ASK_TIMEOUT_S = 3600;

/** How often a waiting ask with a `progressToken` tells the client it is alive: a sixth of the SDK's default timeout. */
export const ASK_PROGRESS_INTERVAL_MS = 10_000;

/** What the client's progress handler shows while the person decides. */
export const ASK_PROGRESS_MESSAGE = 'waiting for your approval in Silas';
