/**
 * @module bus
 * Public surface of the message bus. Anything added here is public.
 */
export {
  type ConfirmationListener,
  type ConfirmationRequest,
  ConfirmationTimeoutError,
  MessageBus,
  type MessageBusOptions,
  NoListenerError,
} from "./message-bus.js";
