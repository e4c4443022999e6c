import { useMutation } from "@tanstack/react-query";
import { Button } from "../components/Button";
import { FormError } from "../components/States";
import { downloadJson } from "./download";

/**
 * Downloads the signed evidence document of a command or a release
 * (GET .../evidence); `gitopshq evidence verify` checks it offline.
 */
export function EvidenceLink({ path, filename }: { path: string; filename: string }) {
  const get = useMutation({ mutationFn: () => downloadJson(path, filename) });
  return (
    <span className="inline-flex items-center gap-2">
      <Button onClick={() => get.mutate()} disabled={get.isPending}>
        {get.isPending ? "Signing evidence…" : "Evidence (JSON)"}
      </Button>
      {get.isSuccess && (
        <span role="status" className="text-sm text-green-800">
          Evidence downloaded
        </span>
      )}
      <FormError error={get.error} />
    </span>
  );
}
