import { useStore } from "../store";

/** The current view's message; the store clears it whenever the view changes. */
export function Notice() {
  const notice = useStore((s) => s.notice);
  if (!notice) return null;
  return (
    <div className={`notice ${notice.kind}`} data-testid="notice" onClick={() => useStore.setState({ notice: undefined })}>
      {notice.text}
    </div>
  );
}
