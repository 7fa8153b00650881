/** The studio's store: one zustand store made of the slices in this folder (their shapes are in state.ts). */
import { create } from "zustand";
import { appsSlice } from "./apps";
import { chatSlice } from "./chat";
import { draftSlice } from "./draft";
import { editSlice } from "./edits";
import { reviewSlice } from "./review";
import { runSlice } from "./run";
import { sessionSlice } from "./session";
import type { State } from "./state";
import { teamSlice } from "./team";
import { uiSlice } from "./ui";
import { versionsSlice } from "./versions";

/** How a node is marked on the canvas by a proposal under review. */
export type { NodeMark as Highlight } from "../review/view";
export type {
  ChatEntry,
  Conversation,
  Me,
  NodeStatus,
  PausedForm,
  Review,
  RunState,
  Team,
  WorkspaceChoice,
} from "./entities";
export { errText } from "./errText";
export { setDraftFlusher } from "./flush";
export type { Panel, State } from "./state";

export const useStore = create<State>((set, get) => {
  const store = { set, get };
  return {
    ...sessionSlice(store),
    ...teamSlice(store),
    ...appsSlice(store),
    ...draftSlice(store),
    ...editSlice(store),
    ...runSlice(store),
    ...chatSlice(store),
    ...reviewSlice(store),
    ...versionsSlice(store),
    ...uiSlice(store),
  };
});
