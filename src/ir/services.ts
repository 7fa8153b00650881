/**
 * Contracts between node executors and the outside world. The engine wires real implementations
 * (src/llm, src/tools, src/sandbox ...) into these; `ir` only names the shapes.
 */

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelRef {
  provider: string;
  name: string;
  mode?: string;
  completion_params?: Record<string, unknown>;
}

export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "file"; data: Uint8Array | string; mediaType: string; filename?: string };

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | ChatContentPart[];
  toolCallId?: string;
  toolCalls?: ToolCall[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface LlmRequest {
  model: ModelRef;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** Ask for a JSON object (optionally matching a JSON Schema). */
  json?: { schema?: Record<string, unknown>; name?: string };
  onText?: (delta: string) => void;
  signal?: AbortSignal;
}

export interface LlmResponse {
  text: string;
  reasoning?: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason: string;
}

export interface LlmService {
  chat(req: LlmRequest): Promise<LlmResponse>;
  embed?(texts: string[], model?: ModelRef): Promise<number[][]>;
}

/** Dify's file value shape (the subset Weft reads and writes). */
export interface FileValue {
  dify_model_identity?: "__dify__file__";
  type: "image" | "document" | "audio" | "video" | "custom";
  transfer_method: "remote_url" | "local_file" | "tool_file" | "datasource_file";
  remote_url?: string | null;
  url?: string | null;
  filename: string;
  extension: string;
  mime_type: string;
  size: number;
  related_id?: string | null;
}

export interface ToolResult {
  text: string;
  files: FileValue[];
  json: unknown[];
  variables?: Record<string, unknown>;
}

export interface ToolInvocation {
  providerId: string;
  providerType?: string;
  toolName: string;
  parameters: Record<string, unknown>;
  configurations?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface ToolService {
  invoke(inv: ToolInvocation): Promise<ToolResult>;
  /** Tools a tool-calling node may choose from, as JSON-schema specs (configured servers are asked). */
  list?(): ToolSpec[] | Promise<ToolSpec[]>;
  /** The parameters of whatever serves provider/tool (so a node tells required from optional), if known. */
  describe?(providerId: string, toolName: string): Promise<Array<{ name: string; required: boolean }> | undefined>;
}

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  maxOutputBytes: number;
}

/**
 * How long a sandbox may take to start before the user's code runs (interpreter start, module
 * preload, lockdown; more on a loaded machine). It is not the user's time: sandboxes start their
 * `timeoutMs` clock when the code starts, and a code node's `timeout_seconds` timer allows this much
 * on top.
 */
export const SANDBOX_STARTUP_ALLOWANCE_MS = 30_000;

export interface SandboxService {
  run(req: {
    language: "javascript" | "python3";
    code: string;
    inputs: Record<string, unknown>;
    limits?: Partial<SandboxLimits>;
    signal?: AbortSignal;
  }): Promise<unknown>;
}

export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string | FormData;
  timeoutMs: number;
  signal?: AbortSignal;
  sslVerify?: boolean;
  /** Per-phase limits (Dify's connect/read/write); `timeoutMs` stays the overall cap. */
  timeouts?: { connectMs?: number; readMs?: number; writeMs?: number };
  /** Refuse a response body larger than this many bytes. */
  maxResponseBytes?: number;
}

export interface HttpResponseData {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface HttpService {
  request(req: HttpRequestSpec): Promise<HttpResponseData>;
}

export interface FileService {
  put(
    bytes: Uint8Array,
    meta: { filename: string; mimeType: string; transferMethod?: FileValue["transfer_method"] },
  ): Promise<FileValue>;
  get(file: FileValue): Promise<Uint8Array>;
}

export interface DocumentService {
  /** `signal` (a node timeout, a cancelled run) stops the extraction at once. */
  extract(file: FileValue, bytes: Uint8Array, options?: { signal?: AbortSignal }): Promise<string>;
}

export interface KnowledgeService {
  retrieve(req: {
    query: string;
    datasetIds: string[];
    topK: number;
    scoreThreshold?: number;
    /** Dify's reranking_model mode: the merged candidates reordered (and cut) by a rerank model's scores. */
    rerank?: { model?: string; provider?: string };
    /** Dify's weighted_score mode: the vector share of a hybrid score (the keyword share is the rest). */
    vectorWeight?: number;
    /** Told what the retrieval could not do as asked (a rerank with no rerank endpoint configured). */
    onNote?: (text: string) => void;
  }): Promise<Array<{ content: string; title: string; metadata: Record<string, unknown> }>>;
}

/** A human-input form field as Dify's node declares it (`paragraph`, `text_input`, `select`, `file`, `file-list`). */
export interface FormInputDef {
  type: string;
  output_variable_name: string;
  [field: string]: unknown;
}

/** A button of a human-input form; its id is the node's output port. */
export interface FormAction {
  id: string;
  title: string;
  button_style: string;
}

/** What a human-input form shows: the node asking, its text, its inputs and buttons, the values prefilled. */
export interface FormContent {
  nodeId: string;
  nodeTitle: string;
  /** The form text with run values substituted; `{{#$output.name#}}` placeholders kept for the answer. */
  content: string;
  inputs: FormInputDef[];
  actions: FormAction[];
  /** Values to prefill, by input name (defaults that named a variable, resolved when the run paused). */
  defaults: Record<string, unknown>;
}

/** What a human-input node asks for: the form of one node execution (`key`) of one run. */
export interface FormRequest extends FormContent {
  runId: string;
  key: string;
  /** How long the form waits before the node takes its timeout path; null = no timeout. */
  timeoutMs: number | null;
  /** The run's clock (ExecServices.now), so pinned clocks pin expiry too. */
  now: number;
}

/** A form waiting for its answer: what clients show and submit to. */
export interface PendingForm extends FormContent {
  formId: string;
  token: string;
  key: string;
  createdAt: number;
  expiresAt: number | null;
}

export type FormDecision =
  | { status: "waiting"; form: PendingForm }
  | { status: "submitted"; form: PendingForm; action: string; inputs: Record<string, unknown> }
  | { status: "timeout"; form: PendingForm };

/**
 * Durable human-input forms: the first request of a node execution creates its form; later requests (after
 * a resume) get the answer, the timeout, or the same form still waiting.
 */
export interface HumanInputService {
  request(req: FormRequest): Promise<FormDecision>;
}

export interface ExecServices {
  llm?: LlmService;
  tools?: ToolService;
  sandbox?: SandboxService;
  http?: HttpService;
  files?: FileService;
  documents?: DocumentService;
  knowledge?: KnowledgeService;
  humanInput?: HumanInputService;
  /** Pinned clock and seed make runs repeatable (benchmarks pin both). */
  now: () => Date;
  random: () => number;
}
