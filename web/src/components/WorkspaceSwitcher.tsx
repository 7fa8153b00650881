import { useStore } from "../store";

/** The header's workspace choice, shown only to an account that belongs to more than one workspace. */
export function WorkspaceSwitcher() {
  const workspaces = useStore((s) => s.workspaces);
  if (workspaces.length < 2) return null;
  const current = workspaces.find((w) => w.current)?.workspace.id ?? "";
  return (
    <label className="workspace-switcher">
      <span className="muted">Workspace</span>
      <select
        data-testid="workspace-switcher"
        value={current}
        onChange={(e) => void useStore.getState().switchWorkspace(e.target.value)}
      >
        {workspaces.map((w) => (
          <option key={w.workspace.id} value={w.workspace.id}>
            {w.workspace.name} ({w.role})
          </option>
        ))}
      </select>
    </label>
  );
}
