import type { HandlerServices } from '../control/handlers.js';

export type { CallHandlers } from '../control/router.js';
export type HandlerServicesLike = Pick<HandlerServices, 'review' | 'kinds' | 'servers' | 'standing' | 'clients'>;
