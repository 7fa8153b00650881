import "@xyflow/react/dist/style.css";
import "./styles.css";
import { useEffect } from "react";
import { createRoot } from "react-dom/client";
import { AppList } from "./components/AppList";
import { Editor } from "./components/Editor";
import { Login } from "./components/Login";
import { followStoreInUrl, syncToRoute } from "./routing";
import { parseRoute, useRoute } from "./route";
import { useStore } from "./store";

followStoreInUrl();

function App() {
  const key = useStore((s) => s.key);
  const app = useStore((s) => s.app);
  const loaded = useStore((s) => s.nodeTypes.length > 0);
  const path = useRoute();
  useEffect(() => {
    if (key && !loaded) void useStore.getState().login(key);
  }, [key, loaded]);
  // The URL names what is open (`/apps/:id`, `/apps/:id/runs/:runId`): a reload or a shared link opens it again.
  useEffect(() => {
    if (key && loaded) void syncToRoute(path);
  }, [key, loaded, path]);
  if (!key) return <Login />;
  if (app) return <Editor />;
  // A link to an app shows the app once it is open, not the list in between.
  if (parseRoute(path).appId) return <p className="muted opening" data-testid="opening">Opening…</p>;
  return <AppList />;
}

createRoot(document.getElementById("root")!).render(<App />);
