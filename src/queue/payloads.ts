/** Copies a main Space's configuration, models and failover chain into its sandbox. */
export interface SandboxSyncJob {
  mainAppId: string;
  /** Who asked, for `modified_by` on the sandbox. */
  requestedBy: string;
}

/** Screens a prompt submitted for publication before a service owner reviews it. */
export interface PromptReviewJob {
  promptId: string;
  /** The `published_on` this job was enqueued for; a newer submission makes the job stale. */
  publishedOn: string;
}
