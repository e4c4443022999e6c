package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Command;

@Command(name = "whoami", description = "Who the token belongs to, and what it may do.")
final class WhoamiCommand extends Base implements Runnable {
  static final List<Output.Column> FIELDS =
      List.of(
          Output.Column.of("Name", "name"),
          Output.Column.of("Type", "type"),
          Output.Column.of("Role", "role"),
          Output.Column.of("Organization", "/org/slug"),
          Output.Column.of("Permissions", "permissions"));

  @Override
  public void run() {
    JsonNode me = client().call(Endpoint.ME);
    output().object(me, FIELDS);
  }
}
