/**
 * Pending human-input forms: what a paused run asks for, and the answer that lets it continue. A form belongs
 * to one node execution of one run (`runId` + frame `key`), so a node inside an iteration gets one form per
 * item. Implemented in memory and on SQLite; issue 18 adds PostgreSQL.
 */

import type { FormAction, FormContent, FormInputDef } from "../ir/services.js";

export type { FormAction, FormInputDef };

export type FormStatus = "waiting" | "submitted" | "timeout";

export interface FormSubmission {
  action: string;
  inputs: Record<string, unknown>;
  /** Who answered: the service API's `user`, `cli`, or the web UI's user. */
  user?: string;
  submittedAt: number;
}

export interface FormRecord extends FormContent {
  id: string;
  /** The credential a form URL or the service API names the form by (`form_token`); never the form id. */
  token: string;
  runId: string;
  /** The node's frame key within the run (`approve`, `iter[2]/approve`). */
  key: string;
  createdAt: number;
  /** When the node's timeout path is taken; null = never. */
  expiresAt: number | null;
  status: FormStatus;
  submission?: FormSubmission;
  closedAt?: number;
}

export type FormOutcome = { status: "submitted"; submission: FormSubmission } | { status: "timeout" };

export interface FormStore {
  /**
   * Store a new form. First creation wins per (runId, key): when that node already has a form (a resumed run
   * reaching the node again), nothing is written and the stored form is returned.
   */
  createForm(form: FormRecord): Promise<FormRecord>;
  getForm(id: string): Promise<FormRecord | undefined>;
  formByToken(token: string): Promise<FormRecord | undefined>;
  formOf(runId: string, key: string): Promise<FormRecord | undefined>;
  /** A run's forms in creation order. */
  runForms(runId: string): Promise<FormRecord[]>;
  /** Every waiting form, oldest first (a restarted server arms their timeouts). */
  waitingForms(): Promise<FormRecord[]>;
  /**
   * Close a waiting form as submitted or timed out. First close wins, even between processes: the form as
   * stored afterwards is returned, so a caller whose close lost sees the winner's status and submission.
   * Unknown ids resolve to undefined.
   */
  closeForm(id: string, outcome: FormOutcome, at: number): Promise<FormRecord | undefined>;
}
