/**
 * @module bus
 * The message bus's front door: the bus and the listener type hosts subscribe with — only what other folders
 * or the package root use. Anything added here is public.
 */
export { type ConfirmationListener, MessageBus } from "./message-bus.js";
