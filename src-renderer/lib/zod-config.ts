import { z } from 'zod';

/*
 * Must be evaluated before any module that builds a zod schema: zod probes `new Function`
 * when an object schema is constructed, and under the cockpit's `script-src 'self'` that
 * probe is reported as a CSP violation even though zod catches it. The interpreted parser
 * is fast enough for control-plane payloads.
 */
z.config({ jitless: true });
