/** The studio's side of /api/knowledge: bases, documents, chunk previews, uploads with progress, hit testing. */
import { api, failure, headers } from "../api";

export interface Chunking {
  separator: string;
  maxLength: number;
  overlap: number;
  removeExtraSpaces: boolean;
  removeUrlsEmails: boolean;
  /** Dify's chunk mode: `general` chunks, or `parent_child` (children searched, their parent returned). */
  structure: "general" | "parent_child";
  /** Parent chunks: the separator/maxLength chunks (`paragraph`) or the whole document (`full-doc`). */
  parentMode: "paragraph" | "full-doc";
  /** How each parent is split into the child chunks that are searched. */
  subchunkSeparator: string;
  subchunkMaxLength: number;
  subchunkOverlap: number;
}

export interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  chunking: Chunking;
  embeddingModel: string | null;
  documents: number;
  chunks: number;
  createdAt: number;
}

export interface KnowledgeDocument {
  id: string;
  name: string;
  size: number;
  chunks: number;
  createdAt: number;
}

export interface ChunkPreview {
  chunking: Chunking;
  characters: number;
  total: number;
  /** With parent-child chunking each entry is a parent, with the children that would be searched. */
  chunks: Array<{ position: number; content: string; characters: number; children?: string[] }>;
}

export type SearchMode = "keyword" | "vector" | "hybrid";

export interface Hit {
  content: string;
  title: string;
  metadata: {
    score: number;
    segment_position: number;
    document_name: string;
    /** Parent-child bases: the children that matched, under the parent returned as `content`. */
    child_chunks?: Array<{ id: string; content: string; position: number; score: number }>;
  };
}

const at = (id: string) => `/api/knowledge/${encodeURIComponent(id)}`;

type Listing = { knowledge_bases: KnowledgeBase[]; limits: { max_document_bytes: number } };
export const listBases = async () => (await api<Listing>("/api/knowledge")).knowledge_bases;
/** The largest document the server takes in one upload (its body limit or documents.maxBytes). */
export const maxDocumentBytes = async () => (await api<Listing>("/api/knowledge")).limits.max_document_bytes;
export const getBase = (id: string) => api<KnowledgeBase>(at(id));
export const createBase = (b: { name: string; id?: string; description?: string; chunking?: Partial<Chunking> }) =>
  api<KnowledgeBase>("/api/knowledge", { json: b });
export const deleteBase = (id: string) => api(at(id), { method: "DELETE" });
export const listDocuments = async (id: string) =>
  (await api<{ documents: KnowledgeDocument[] }>(`${at(id)}/documents`)).documents;
export const deleteDocument = (id: string, doc: string) =>
  api(`${at(id)}/documents/${encodeURIComponent(doc)}`, { method: "DELETE" });
export const search = (id: string, q: { query: string; top_k: number; score_threshold?: number; mode: SearchMode }) =>
  api<{ mode: SearchMode; result: Hit[] }>(`${at(id)}/search`, { json: q });

function documentForm(file: File, chunking: Partial<Chunking>): FormData {
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("chunking", JSON.stringify(chunking));
  return form;
}

export const previewChunks = (id: string, file: File, chunking: Partial<Chunking>) =>
  api<ChunkPreview>(`${at(id)}/preview`, { body: documentForm(file, chunking) });

/**
 * Adds a document, reporting the share of its bytes sent (fetch cannot report upload progress; XMLHttpRequest
 * can). Failures are the API's typed errors, as every other call's.
 */
export function uploadDocument(
  id: string,
  file: File,
  chunking: Partial<Chunking>,
  onProgress: (sent: number) => void,
): Promise<KnowledgeDocument> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${at(id)}/documents`);
    for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v);
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new Error(`the upload of ${file.name} was interrupted (network error)`));
    xhr.onload = async () => {
      const res = new Response(xhr.responseText, {
        status: xhr.status,
        headers: { "content-type": "application/json" },
      });
      if (xhr.status >= 200 && xhr.status < 300) resolve((await res.json()) as KnowledgeDocument);
      else reject(await failure(res));
    };
    xhr.send(documentForm(file, chunking));
  });
}
