import { useEffect, useState } from "react";
import { errText, useStore } from "../store";
import { PasswordInput } from "./CredentialFields";
import { TableHead } from "./TableHead";

const ROLES = ["owner", "admin", "editor", "runner", "viewer"] as const;

/** Copy to the clipboard where the page may (a secure context); the link stays selectable either way. */
function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      data-testid="invite-copy"
      onClick={() =>
        navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

function InviteForm() {
  const isOwner = useStore((s) => s.me?.role === "owner");
  const lastLink = useStore((s) => s.team?.lastLink);
  const [role, setRole] = useState("editor");
  return (
    <section className="invite">
      <h3>Invite by link</h3>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void useStore.getState().invite(role);
        }}
      >
        <select data-testid="invite-role" value={role} onChange={(e) => setRole(e.target.value)}>
          {ROLES.filter((r) => r !== "owner" || isOwner).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" data-testid="invite-create">
          Create invitation link
        </button>
      </form>
      {lastLink && (
        <div className="row" data-testid="invite-link-box">
          <input data-testid="invite-link" readOnly value={lastLink.url} onFocus={(e) => e.target.select()} />
          <CopyButton text={lastLink.url} />
          <span className="muted">single use, as {lastLink.role}; shown once</span>
        </div>
      )}
    </section>
  );
}

function ResetPassword({ userId }: { userId: string }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  if (!open)
    return (
      <button type="button" data-testid="member-reset" onClick={() => setOpen(true)}>
        Reset password
      </button>
    );
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        void useStore
          .getState()
          .resetPassword(userId, password)
          .then((ok) => {
            if (!ok) return;
            setOpen(false);
            setPassword("");
          });
      }}
    >
      <PasswordInput
        testId="member-new-password"
        fresh
        value={password}
        onChange={setPassword}
        placeholder="new password"
      />
      <button type="submit" disabled={!password}>
        Set
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

/**
 * The workspace's members (owners and admins: `members.manage`): each with a role to change, remove, and for an
 * owner a password reset; invitations by link with a role, and those not used yet.
 */
export function MembersPanel({ onClose }: { onClose: () => void }) {
  const team = useStore((s) => s.team);
  const me = useStore((s) => s.me);
  const { loadTeam, setMemberRole, removeMember, revokeInvite, say } = useStore.getState();
  const workspaceId = me?.workspace?.id;
  // Again when the switcher moves to another workspace while the panel is open.
  // biome-ignore lint/correctness/useExhaustiveDependencies: workspaceId reloads the team when the switcher moves to another workspace
  useEffect(() => {
    loadTeam().catch((e: unknown) => say("error", `could not list the members: ${errText(e)}`));
  }, [loadTeam, say, workspaceId]);
  const isOwner = me?.role === "owner";
  return (
    <section className="members" data-testid="members-panel">
      <div className="modal-head">
        <h3>Members of {me?.workspace?.name ?? "this workspace"}</h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <table className="apps">
        <TableHead columns={["Email", "Role", "Member since", ""]} />
        <tbody>
          {(team?.members ?? []).map((m) => {
            // Only an owner grants, changes or removes the owner role (the server says so too).
            const locked = m.role === "owner" && !isOwner;
            const self = m.userId === me?.user?.id;
            return (
              <tr key={m.userId} data-testid="member-row" data-email={m.email}>
                <td>
                  {m.email ?? m.userId}
                  {self ? " (you)" : ""}
                </td>
                <td>
                  <select
                    data-testid="member-role"
                    value={m.role}
                    disabled={locked}
                    onChange={(e) => void setMemberRole(m.userId, e.target.value)}
                  >
                    {ROLES.filter((r) => r !== "owner" || isOwner || m.role === "owner").map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td>{new Date(m.since).toLocaleDateString()}</td>
                <td>
                  <div className="row">
                    <button
                      type="button"
                      data-testid="member-remove"
                      disabled={locked}
                      onClick={() =>
                        confirm(`Remove ${m.email ?? m.userId} from this workspace?`) && void removeMember(m.userId)
                      }
                    >
                      Remove
                    </button>
                    {isOwner && !self && <ResetPassword userId={m.userId} />}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <InviteForm />
      {(team?.invites.length ?? 0) > 0 && (
        <section>
          <h3>Invitations not used yet</h3>
          <ul data-testid="invites-pending">
            {team!.invites.map((i) => (
              <li key={i.id}>
                as {i.role}, until {new Date(i.expiresAt).toLocaleString()}{" "}
                <button type="button" className="link-btn" onClick={() => void revokeInvite(i.id)}>
                  revoke
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}
