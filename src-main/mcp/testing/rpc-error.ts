import { McpError } from '@modelcontextprotocol/sdk/types.js';

export interface RpcRefusal {
  code: number;
  /** The message without the SDK's "MCP error -32xxx: " prefix. */
  message: string;
  data: Record<string, unknown>;
}

/** The JSON-RPC error a call through the proxy ended with; throws when the call succeeded. */
export async function rpcError(promise: Promise<unknown>): Promise<RpcRefusal> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message.replace(/^MCP error -?\d+: /, ''), data: error.data as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected the call to be refused');
}
