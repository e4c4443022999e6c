import { useParams } from "react-router-dom";
import { TabNav } from "../components/TabNav";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Project } from "../api/types";
import { ErrorState, Loading } from "../components/States";
import { ReleasesTab } from "./ReleasesTab";
import { GenerationsTab } from "./GenerationsTab";
import { FreezeTab } from "./FreezeTab";
import { DeployTokensTab } from "./DeployTokensTab";
import { ConfigTab } from "./ConfigTab";
import { FenceTab } from "./FenceTab";
import { queryKeys } from "../api/keys";

const TABS = [
  { id: "releases", label: "Releases" },
  { id: "generations", label: "Generations" },
  { id: "freezes", label: "Freeze windows" },
  { id: "tokens", label: "Deploy tokens" },
  { id: "config", label: "Configuration" },
  { id: "fence", label: "Fence" },
];

export function ProjectPage() {
  const { id = "", tab = "releases" } = useParams();
  const project = useQuery({ queryKey: queryKeys.project(id), queryFn: () => api<Project>(`/projects/${id}`) });
  if (project.isPending) return <Loading what="the project" />;
  if (project.isError) return <ErrorState error={project.error} />;
  const p = project.data;
  return (
    <section aria-labelledby="project-title">
      <h1 id="project-title" className="text-2xl font-semibold">
        {p.name}
      </h1>
      <p className="text-sm text-slate-500">
        configuration revision {p.configRevision} · <code>{p.repository.cloneUrl}</code>
      </p>
      <TabNav label="Project tabs" base={`/projects/${id}`} tabs={TABS} />
      <div className="mt-4">
        {tab === "releases" && <ReleasesTab project={p} />}
        {tab === "generations" && <GenerationsTab project={p} />}
        {tab === "freezes" && <FreezeTab project={p} />}
        {tab === "tokens" && <DeployTokensTab project={p} />}
        {tab === "config" && <ConfigTab project={p} />}
        {tab === "fence" && <FenceTab project={p} />}
      </div>
    </section>
  );
}
