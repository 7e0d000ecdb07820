export {
  DlpEngine,
  DLP_FORBIDDEN,
  DLP_REDACTION_FAILED,
  type DlpArgumentValidator,
  type DlpDirection,
  type DlpEngineOptions,
  type DlpEvent,
  type DlpRequestAction,
  type DlpRequestError,
  type DlpRequestErrorData,
  type DlpRequestResult,
  type DlpTextResult,
  type DlpValueResult,
  type JsonRpcErrorPayload,
} from './engine.js';
export { DlpInputError } from './walk.js';
export { markerFor } from './patterns.js';
