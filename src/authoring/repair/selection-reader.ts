/**
 * Reads the free text of a `<node_selection>` section into node type strings, the way Chat2Workflow's
 * LLM judge reads it. Real answers write the list in many shapes, all of which the judge accepts:
 * - comma lists with notes in parentheses, commas included: "Template (for title, body, and intro)";
 * - numbered lines with a description: "1. Start - to receive the topic";
 * - tag-style lists: "<Start></Start><LLM></LLM>";
 * - round-k deltas on the existing workflow: "I will modify the existing workflow by: 1. Keeping Start and
 *   LLM nodes 2. Adding a Markdown Exporter node 3. Removing the TTS node". The judge reads these as the
 *   previous round's nodes plus what is added, minus what is removed; that needs the previous round's
 *   node types, which the caller passes when it has them.
 */
import { normaliseNodeName } from "./node-names.js";

export interface SelectionReading {
  /** Node types the selection declares (deduplicated, in order of appearance). */
  declared: string[];
  /** Node types a delta says it removes. */
  removed: string[];
  /** Listed items that name no node type (informational: preambles, prose). */
  unrecognised: string[];
  /** The text describes changes to the existing workflow. */
  delta: boolean;
}

const KEEP_VERB =
  /^(?:keep|keeping|kept|retain|retaining|reuse|reusing|use|using|add|adding|added|include|including|insert|inserting|modify|modifying|modified|update|updating|updated|change|changing|replace|replacing|extend|extending)\b/i;
const REMOVE_VERB = /^(?:remove|removing|removed|delete|deleting|deleted|drop|dropping|dropped)\b/i;
const FILLER = /^(?:a|an|the|new|existing|another|additional|extra|one|two|three|four|second|third|same)\b\s*/i;
const DELTA = /\b(?:existing|previous|current|original)\s+(?:workflow|version|nodes?)\b/i;
/** One-word aliases too generic to be picked out of a longer phrase. */
const PHRASE_BLOCKLIST = new Set(["if", "if-else", "google-search"]);

/** Empty tag pairs name their node ("<LLM></LLM>"); other tags are wrappers and become separators. */
function untag(text: string): string {
  return text.replace(/<\s*([^<>/]+?)\s*>\s*<\/\s*\1\s*>/g, "$1\n").replace(/<[^<>]*>/g, "\n");
}

/** Splits on newlines, semicolons, 、 and commas that are not inside brackets. */
function splitItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if ("([{（".includes(ch)) depth++;
    else if (")]}）".includes(ch)) depth = Math.max(0, depth - 1);
    if (ch === "\n" || ch === ";" || ch === "、" || ((ch === "," || ch === "，") && depth === 0)) {
      items.push(cur);
      cur = "";
      if (ch === "\n") depth = 0;
    } else cur += ch;
  }
  items.push(cur);
  return items.map((s) => s.trim()).filter(Boolean);
}

function stripBrackets(s: string): string {
  let out = s;
  for (let prev = ""; prev !== out; ) {
    prev = out;
    out = out.replace(/[([（][^()[\]（）]*[)\]）]/g, " ");
  }
  // An unclosed note ("LLM (3 for doc") loses its tail.
  return out
    .replace(/[([（].*$/, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The longest run of words at `from` that names a node type. */
function nameAt(words: readonly string[], from: number): { type: string; len: number } | undefined {
  for (let len = Math.min(4, words.length - from); len >= 1; len--) {
    const t = normaliseNodeName(words.slice(from, from + len).join(" "));
    if (t) return { type: t, len };
  }
  return undefined;
}

/** Node types named by one phrase: the whole phrase, its "and"-parts, or (after a verb) a name inside it. */
function namesIn(phrase: string, afterVerb: boolean): string[] {
  const out: string[] = [];
  for (let part of phrase.split(/\s+(?:and|&|plus)\s+|\s*\+\s*/i)) {
    while (FILLER.test(part)) part = part.replace(FILLER, "");
    const whole = normaliseNodeName(part);
    if (whole) {
      out.push(whole);
      continue;
    }
    const words = part.split(/\s+/).filter(Boolean);
    const head = nameAt(words, 0);
    if (head && !PHRASE_BLOCKLIST.has(head.type)) {
      out.push(head.type);
      continue;
    }
    if (!afterVerb) continue;
    for (let i = 1; i < words.length; i++) {
      const hit = nameAt(words, i);
      if (hit && !PHRASE_BLOCKLIST.has(hit.type)) {
        out.push(hit.type);
        break;
      }
    }
  }
  return out;
}

export function readNodeSelection(text: string, opts: { previous?: readonly string[] } = {}): SelectionReading {
  const declared: string[] = [];
  const removed: string[] = [];
  const unrecognised: string[] = [];
  const delta = DELTA.test(text);
  for (const raw of splitItems(untag(text))) {
    const item = raw.replace(/^(?:[-*•·]+|\(?\d+[.):]|\(?[a-z][.)]|step\s+\d+[.:]?)\s*/i, "").trim();
    // "Name - what it does" / "Name: what it does": the name is before the separator.
    let phrase = stripBrackets(item)
      .split(/\s+[-–—:]\s+|:\s+|\s+[-–—]$/)[0]!
      .trim();
    phrase = phrase.replace(/[.:]+$/, "").trim();
    if (!phrase) continue;
    const remove = REMOVE_VERB.test(phrase);
    const keep = !remove && KEEP_VERB.test(phrase);
    const body = remove || keep ? phrase.replace(remove ? REMOVE_VERB : KEEP_VERB, "").trim() : phrase;
    const names = namesIn(body, remove || keep);
    if (names.length === 0) {
      unrecognised.push(raw);
      continue;
    }
    (remove ? removed : declared).push(...names);
  }
  const base = delta && opts.previous ? [...opts.previous, ...declared] : declared;
  const gone = new Set(removed.filter((t) => !declared.includes(t)));
  return {
    declared: [...new Set(base)].filter((t) => !gone.has(t)),
    removed: [...new Set(removed)],
    unrecognised,
    delta,
  };
}
