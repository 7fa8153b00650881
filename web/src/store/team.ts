import { api } from "../api";
import type { Team } from "./entities";
import { errText } from "./errText";
import type { Store, TeamSlice } from "./state";

export function teamSlice({ set, get }: Store): TeamSlice {
  /** A members change, then the panel's lists again; a refusal is said where the user is. */
  const teamChange = async (path: string, init: { method?: string; json?: unknown }, done?: string) => {
    try {
      await api(path, init);
      if (done) get().say("ok", done);
    } catch (e) {
      get().say("error", errText(e));
    }
    await get().loadTeam();
  };
  const member = (userId: string) => `/api/members/${encodeURIComponent(userId)}`;

  return {
    async loadTeam() {
      const { members } = await api<{ members: Team["members"] }>("/api/members");
      const { invites } = get().can("members.manage")
        ? await api<{ invites: Team["invites"] }>("/api/members/invites")
        : { invites: [] };
      set((s) => ({ team: { members, invites, lastLink: s.team?.lastLink } }));
    },
    async invite(role) {
      try {
        const r = await api<{ url: string }>("/api/members/invites", { json: { role } });
        set((s) => ({
          team: { members: s.team?.members ?? [], invites: s.team?.invites ?? [], lastLink: { url: r.url, role } },
        }));
      } catch (e) {
        get().say("error", errText(e));
      }
      await get().loadTeam();
    },
    revokeInvite: (id) =>
      teamChange(`/api/members/invites/${encodeURIComponent(id)}`, { method: "DELETE" }, "invitation revoked"),
    setMemberRole: (userId, role) =>
      teamChange(member(userId), { method: "PUT", json: { role } }, `role changed to ${role}`),
    removeMember: (userId) => teamChange(member(userId), { method: "DELETE" }, "member removed"),
    async resetPassword(userId, password) {
      try {
        const r = await api<{ sessionsEnded: number }>(`${member(userId)}/password`, { json: { password } });
        get().say("ok", `password reset; ${r.sessionsEnded} session(s) signed out`);
        return true;
      } catch (e) {
        get().say("error", errText(e));
        return false;
      }
    },
  };
}
