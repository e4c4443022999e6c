import { Navigate, Route, Routes } from "react-router-dom";
import { useSession } from "./auth/session";
import { SignIn } from "./auth/SignIn";
import { Shell } from "./layout/Shell";
import { ClustersPage } from "./clusters/ClustersPage";
import { ClusterPage } from "./clusters/ClusterPage";
import { ApprovalsPage } from "./approvals/ApprovalsPage";
import { ApprovalPoliciesPage } from "./approvalpolicies/ApprovalPoliciesPage";
import { PoliciesPage } from "./policies/PoliciesPage";
import { PolicyPage } from "./policies/PolicyPage";
import { AuditPage } from "./audit/AuditPage";
import { ProjectsPage } from "./projects/ProjectsPage";
import { ProjectPage } from "./projects/ProjectPage";
import { PeoplePage } from "./people/PeoplePage";
import { TeamsPage } from "./people/TeamsPage";
import { SettingsPage } from "./settings/SettingsPage";
import { CredentialsPage } from "./credentials/CredentialsPage";
import { CommandPage } from "./clusters/CommandPage";

export function App() {
  const { token } = useSession();
  if (!token) return <SignIn />;
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<Navigate to="/clusters" replace />} />
        <Route path="clusters" element={<ClustersPage />} />
        <Route path="clusters/:id" element={<Navigate to="overview" replace />} />
        <Route path="clusters/:id/:tab" element={<ClusterPage />} />
        <Route path="commands/:id" element={<CommandPage />} />
        <Route path="approvals" element={<ApprovalsPage />} />
        <Route path="approval-policies" element={<ApprovalPoliciesPage />} />
        <Route path="policies" element={<PoliciesPage />} />
        <Route path="policies/:name" element={<PolicyPage />} />
        <Route path="projects" element={<ProjectsPage />} />
        <Route path="projects/:id" element={<Navigate to="releases" replace />} />
        <Route path="projects/:id/:tab" element={<ProjectPage />} />
        <Route path="audit" element={<AuditPage />} />
        <Route path="people" element={<PeoplePage />} />
        <Route path="teams" element={<TeamsPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="credentials" element={<CredentialsPage />} />
        <Route path="*" element={<p className="p-4">No such page.</p>} />
      </Route>
    </Routes>
  );
}
