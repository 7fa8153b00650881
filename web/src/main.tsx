import "@xyflow/react/dist/style.css";
import "./styles.css";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { AppList } from "./components/AppList";
import { Editor } from "./components/Editor";
import { LinkPage, linkToken } from "./components/LinkPage";
import { Login } from "./components/Login";
import { KnowledgeSection } from "./knowledge/KnowledgeSection";
import { parseKnowledgePath, parseRoute, useRoute } from "./route";
import { followStoreInUrl, syncToRoute } from "./routing";
import { useStore } from "./store";

followStoreInUrl();

function App() {
  const key = useStore((s) => s.key);
  const me = useStore((s) => s.me);
  const checked = useStore((s) => s.sessionChecked);
  const signedIn = !!key || !!me;
  const app = useStore((s) => s.app);
  const loaded = useStore((s) => s.nodeTypes.length > 0);
  const path = useRoute();
  // An invitation, setup or sign-in link (`?link=`) is answered before anything else, whoever is signed in.
  const [link, setLink] = useState(linkToken);
  useEffect(() => {
    if (link) return;
    if (key && !loaded) void useStore.getState().login(key);
    // No key: the browser may still hold a session cookie (HTTP-only, so only the server can say).
    else if (!key && !checked) void useStore.getState().resumeSession();
  }, [key, loaded, checked, link]);
  // The URL names what is open (`/apps/:id`, `/apps/:id/runs/:runId`): a reload or a shared link opens it again.
  useEffect(() => {
    if (signedIn && loaded) void syncToRoute(path);
  }, [signedIn, loaded, path]);
  if (link) return <LinkPage token={link} onDone={() => setLink(undefined)} />;
  if (!signedIn) return checked || key ? <Login /> : <p className="muted opening">Signing in…</p>;
  if (app) return <Editor />;
  // A link to an app shows the app once it is open, not the list in between.
  if (parseRoute(path).appId)
    return (
      <p className="muted opening" data-testid="opening">
        Opening…
      </p>
    );
  if (parseKnowledgePath(path)) return <KnowledgeSection path={path} />;
  return <AppList />;
}

createRoot(document.getElementById("root")!).render(<App />);
