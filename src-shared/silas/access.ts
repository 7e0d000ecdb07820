import { z } from 'zod';
import { GateName } from './gates.js';

/**
 * Access levels of spec 002 §3.4 / §5.6: tool tiers for chatbot deployments, unlocked by gates.
 * Field names keep the spec's snake_case (they are written in plan front matter and hashed).
 */

/** The level a non-owner connection starts in and drops back to on expiry (§5.6). */
export const DEFAULT_ACCESS_LEVEL = 'public';

const AccessLevelName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'access level names are letters, digits, "_", "." and "-" (e.g. "verified")');

const ToolName = z.string().min(1).max(200);

/** §3.4 AccessLevel. `requires` lists gates that must ALL have passed; `expires_after` is in seconds. */
export const AccessLevel = z
  .object({
    description: z.string().max(1000).default(''),
    tools: z.array(ToolName).max(1000).default([]),
    requires: z.array(GateName).max(100).default([]),
    expires_after: z.number().int().positive().nullable().default(null),
  })
  .strict()
  .superRefine((level, ctx) => {
    const seen = new Set<string>();
    level.requires.forEach((gate, i) => {
      if (seen.has(gate)) ctx.addIssue({ code: 'custom', path: ['requires', i], message: `gate "${gate}" is listed twice` });
      seen.add(gate);
    });
  });
export type AccessLevel = z.infer<typeof AccessLevel>;

/**
 * `WorkItem.access_levels`. A level requiring more gates is "higher" (§5.6 "a higher level's
 * requirements are met"); equal counts rank by name, so the rank is covered by the plan hash. Only the default level may be unconditional; any other level
 * without `requires` would be granted by the first gate that passes, which is never what a plan means.
 */
export const AccessLevels = z.record(AccessLevelName, AccessLevel).superRefine((levels, ctx) => {
  for (const [name, level] of Object.entries(levels)) {
    if (name !== DEFAULT_ACCESS_LEVEL && level.requires.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [name, 'requires'],
        message: `level "${name}" needs at least one gate in requires; only "${DEFAULT_ACCESS_LEVEL}" may be unconditional`,
      });
    }
  }
});
export type AccessLevels = z.infer<typeof AccessLevels>;

/** What the access controller reports about one connection (for the cockpit and the audit trail). */
export const AccessSnapshot = z
  .object({
    connection_id: z.string(),
    owner: z.boolean(),
    level: z.string(),
    verified_gates: z.array(z.string()),
    granted_at: z.string().nullable(),
    expires_at: z.string().nullable(),
    tools: z.array(z.string()),
  })
  .strict();
export type AccessSnapshot = z.infer<typeof AccessSnapshot>;
