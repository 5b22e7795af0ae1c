/**
 * @module approvals
 * The front door of shared approvals on one machine: the file approval store (a folder every toolgate process
 * of the user shares, no server) and waiting on any store. Anything added here is public to other folders.
 */
export { FileApprovalStore, type FileApprovalStoreOptions } from "./file-store.js";
export { approvalStoreFor, approvalsDir } from "./folder.js";
export {
  resolveWebhook,
  signWebhook,
  verifyWebhook,
  WEBHOOK_REPLAY_WINDOW_S,
  WEBHOOK_SECRET_ENV,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookNotifier,
  type WebhookOptions,
  webhookBody,
  withWebhook,
} from "./webhook.js";
