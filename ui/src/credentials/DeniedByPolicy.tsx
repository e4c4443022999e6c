import { Link } from "react-router-dom";

/**
 * Marks a target the organization's credentials policy denied (docs/policies.md#the-credentials-policy);
 * the target's error holds the policy's reasons. Links to the policy, where an admin changes it.
 */
export function DeniedByPolicy() {
  return (
    <Link
      to="/policies/credentials"
      className="ml-1 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 hover:underline"
    >
      denied by policy
    </Link>
  );
}
