import { useStore } from "../store";

/** The current view's message; the store clears it whenever the view changes. */
export function Notice() {
  const notice = useStore((s) => s.notice);
  if (!notice) return null;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a click dismisses early; the notice clears itself when the view changes
    <div
      className={`notice ${notice.kind}`}
      data-testid="notice"
      onClick={() => useStore.setState({ notice: undefined })}
    >
      {notice.text}
    </div>
  );
}
