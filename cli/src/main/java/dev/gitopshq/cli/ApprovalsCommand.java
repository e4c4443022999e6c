package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "approvals",
    aliases = "approval",
    description = "Your approvals inbox: commands and deployments waiting for your vote.")
final class ApprovalsCommand extends Base {
  static final List<Output.Column> LIST =
      List.of(
          Output.Column.of("Id", "id"),
          Output.Column.of("Kind", "kind"),
          Output.Column.of("Summary", "summary"),
          Output.Column.of("Requester", "/subject/requester"),
          Output.Column.of("Required", "requiredApprovers"),
          Output.Column.of("Expires", "expiresAt"));

  @Command(name = "list", aliases = "ls", description = "Open items you may approve or reject.")
  void list() {
    JsonNode list = client().call(Endpoint.APPROVALS_LIST);
    output().print(list, items(list), LIST);
  }

  @Command(name = "approve", description = "Approve an item (four eyes: never your own).")
  void approve(
      @Parameters(paramLabel = "ID") String id, @Option(names = "--comment") String comment) {
    vote(Endpoint.APPROVALS_APPROVE, id, comment, "Approved");
  }

  @Command(name = "reject", description = "Reject an item; the comment is required.")
  void reject(
      @Parameters(paramLabel = "ID") String id,
      @Option(names = "--comment", required = true) String comment) {
    vote(Endpoint.APPROVALS_REJECT, id, comment, "Rejected");
  }

  private void vote(Endpoint e, String id, String comment, String verb) {
    Map<String, Object> body = new LinkedHashMap<>();
    ClustersCommand.putIf(body, "comment", comment);
    JsonNode r = client().call(e, Map.of(), body, Map.of(), id);
    Output out = output();
    if (out.isTable()) {
      out.line(verb + " " + id + ".");
    } else {
      out.raw(r);
    }
  }
}
