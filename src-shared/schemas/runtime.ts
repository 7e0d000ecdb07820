import { z } from 'zod';

export const RuntimeMode = z.enum(['desktop', 'headless']);
export type RuntimeMode = z.infer<typeof RuntimeMode>;

export const RuntimeInfo = z.object({
  version: z.string(),
  mode: RuntimeMode,
  home: z.string(),
  ownerFingerprint: z.string(),
  startedAt: z.string(),
  pid: z.number().int(),
});
export type RuntimeInfo = z.infer<typeof RuntimeInfo>;
