import { useState } from "react";
import { useStore } from "../store";
import { ImportDialog } from "./ImportDialog";
import { MembersPanel } from "./MembersPanel";
import { Notice } from "./Notice";
import { StudioLink } from "./StudioLink";
import { TableHead } from "./TableHead";
import { WorkspaceSwitcher } from "./WorkspaceSwitcher";

export function AppList() {
  const apps = useStore((s) => s.apps);
  const me = useStore((s) => s.me);
  const canEdit = useStore((s) => s.can("app.edit"));
  const canManage = useStore((s) => s.can("members.manage"));
  const [members, setMembers] = useState(false);
  const { openApp, createApp, importNew, deleteApp, logout } = useStore.getState();
  const [name, setName] = useState("");
  const [mode, setMode] = useState<"workflow" | "advanced-chat">("workflow");
  const [importing, setImporting] = useState(false);
  return (
    <div className="app-list" data-testid="app-list">
      <header className="topbar">
        <h1>Weft</h1>
        <WorkspaceSwitcher />
        <StudioLink path="/knowledge" data-testid="nav-knowledge">
          Knowledge
        </StudioLink>
        <span className="spacer" />
        {me?.user && (
          <span className="muted" data-testid="whoami">
            {me.user.email} · {me.role}
          </span>
        )}
        <button type="button" data-testid="import-new" disabled={!canEdit} onClick={() => setImporting(true)}>
          Import DSL file
        </button>
        {canManage && (
          <button
            type="button"
            data-testid="members-open"
            aria-expanded={members}
            onClick={() => setMembers((m) => !m)}
          >
            Members
          </button>
        )}
        <button type="button" data-testid="logout" onClick={() => logout()}>
          Log out
        </button>
      </header>
      <Notice />
      {members && canManage && <MembersPanel onClose={() => setMembers(false)} />}
      {importing && (
        <ImportDialog
          title="Import a Dify DSL file as a new app"
          onImport={importNew}
          onClose={() => setImporting(false)}
          onOpen={(r) => {
            setImporting(false);
            if (r.app) void openApp(r.app.id);
          }}
        />
      )}
      <form
        className="new-app"
        onSubmit={(e) => {
          e.preventDefault();
          void createApp(name.trim() || "untitled", mode);
          setName("");
        }}
      >
        <input
          placeholder="New app name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="new-app-name"
        />
        <select value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
          <option value="workflow">workflow</option>
          <option value="advanced-chat">chatflow (advanced-chat)</option>
        </select>
        <button type="submit" disabled={!canEdit}>
          Create
        </button>
      </form>
      <table className="apps">
        <TableHead columns={["Name", "Mode", "Version", "Updated", ""]} />
        <tbody>
          {apps.map((a) => (
            <tr key={a.id} data-testid="app-row">
              <td>
                <a
                  href={`/apps/${encodeURIComponent(a.id)}`}
                  onClick={(e) => {
                    e.preventDefault();
                    void openApp(a.id);
                  }}
                >
                  {a.name}
                </a>
              </td>
              <td>{a.mode}</td>
              <td data-testid="app-published">
                v{a.version} ·{" "}
                {a.publishedVersion ? (
                  `published v${a.publishedVersion}`
                ) : (
                  <span className="warn-text">not published</span>
                )}
              </td>
              <td>{new Date(a.updatedAt).toLocaleString()}</td>
              <td>
                <button type="button" onClick={() => confirm(`Delete ${a.name}?`) && void deleteApp(a.id)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
          {apps.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No apps yet: create one or import a Dify DSL file.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
