import { DEFAULT_EXPORT_VERSION } from "./version.js";

/** The features block a new Dify app gets; written when a workflow carries none (these are chat-UI settings). */
export function defaultFeatures(): Record<string, unknown> {
  return {
    file_upload: {
      allowed_file_extensions: [".JPG", ".JPEG", ".PNG", ".GIF", ".WEBP", ".SVG"],
      allowed_file_types: ["image"],
      allowed_file_upload_methods: ["local_file", "remote_url"],
      enabled: false,
      fileUploadConfig: {
        audio_file_size_limit: 50,
        batch_count_limit: 5,
        file_size_limit: 15,
        image_file_size_limit: 10,
        video_file_size_limit: 100,
        workflow_file_upload_limit: 10,
      },
      image: { enabled: false, number_limits: 3, transfer_methods: ["local_file", "remote_url"] },
      number_limits: 3,
    },
    opening_statement: "",
    retriever_resource: { enabled: true },
    sensitive_word_avoidance: { enabled: false },
    speech_to_text: { enabled: false },
    suggested_questions: [],
    suggested_questions_after_answer: { enabled: false },
    text_to_speech: { enabled: false, language: "", voice: "" },
  };
}

/** App-block fields besides name/mode/description for a workflow that never came from Dify. */
export function defaultAppExtras(): Record<string, unknown> {
  return { icon: "🤖", icon_background: "#FFEAD5", icon_type: "emoji", use_icon_as_answer_icon: false };
}

export function defaultViewport(): Record<string, unknown> {
  return { x: 0, y: 0, zoom: 1 };
}

/**
 * Node types that only newer Dify servers know, with the lowest DSL version that carries them. Triggers came
 * with Dify 1.10 (DSL 0.5.0); human-input with DSL 0.6.0. Both mappings are from release notes, not verified
 * against a server.
 */
const NEEDS_VERSION: Record<string, string> = {
  "trigger-schedule": "0.5.0",
  "trigger-webhook": "0.5.0",
  "trigger-plugin": "0.5.0",
  "human-input": "0.6.0",
};

export function versionNeededBy(nodeTypes: Iterable<string>): string {
  let best = DEFAULT_EXPORT_VERSION;
  for (const t of nodeTypes) {
    // Own keys only: a node typed `__proto__` (hostile files import with their unknown types kept) read the prototype.
    const v = Object.hasOwn(NEEDS_VERSION, t) ? NEEDS_VERSION[t] : undefined;
    if (v && v > best) best = v;
  }
  return best;
}
