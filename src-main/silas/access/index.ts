export {
  AccessController,
  accessControllerFactory,
  parseAccessLevels,
  type AccessAuditSink,
  type AccessControllerDeps,
  type CustomerContextLoader,
  type CustomerContextRequest,
} from './access-controller.js';
export { FileCustomerContextLoader, type FileCustomerContextOptions } from './customer-context.js';
