import { useState } from "react";
import { Link } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client";
import type { Page, Project } from "../api/types";
import { Button, inputClass } from "../components/Button";
import { Empty, ErrorState, FormError, Loading } from "../components/States";
import { useSession } from "../auth/session";
import { queryKeys } from "../api/keys";

export function ProjectsPage() {
  const { can } = useSession();
  const client = useQueryClient();
  const [name, setName] = useState("");
  const projects = useQuery({ queryKey: queryKeys.projects(), queryFn: () => api<Page<Project>>("/projects") });
  const create = useMutation({
    mutationFn: () => api<Project>("/projects", { body: { name } }),
    onSuccess: () => {
      setName("");
      client.invalidateQueries({ queryKey: queryKeys.projects() });
    },
  });
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title" className="text-2xl font-semibold">
        Projects
      </h1>
      {can("projects:admin") && (
        <form
          className="mt-3 flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="text-sm">
            New project name
            <input className={inputClass} value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <Button variant="primary" type="submit" disabled={create.isPending}>
            Create project
          </Button>
        </form>
      )}
      <FormError error={create.error} />
      <div className="mt-4 rounded border border-slate-200 bg-white">
        {projects.isPending ? (
          <Loading what="projects" />
        ) : projects.isError ? (
          <ErrorState error={projects.error} />
        ) : projects.data.items.length === 0 ? (
          <Empty>No projects yet.</Empty>
        ) : (
          <ul>
            {projects.data.items.map((p) => (
              <li
                key={p.id}
                className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-100 px-4 py-2 first:border-t-0"
              >
                <Link className="font-medium text-indigo-700 hover:underline" to={`/projects/${p.id}/releases`}>
                  {p.name}
                </Link>
                <span className="text-sm text-slate-500">
                  revision {p.configRevision}, generated {p.generatedRevision ?? "—"} ·{" "}
                  <code>{p.repository.cloneUrl}</code>
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
