/**
 * @module bus
 * Public surface of the message bus. Anything added here is public.
 */
export {
  type ConfirmationListener,
  ConfirmationTimeoutError,
  MessageBus,
  type MessageBusOptions,
  NoListenerError,
  type PublishedConfirmation,
} from "./message-bus.js";
