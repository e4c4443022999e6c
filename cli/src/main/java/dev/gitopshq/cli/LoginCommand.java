package dev.gitopshq.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gitopshq login}: checks a token against the hub ({@code GET /api/v2/me}) and saves the
 * server and token in the config file (mode 0600). With {@code --device}, signs in at the hub's
 * OIDC provider with the device flow (RFC 8628) and saves the hub session it gets for it.
 */
@Command(
    name = "login",
    description = {
      "Check a token against the hub and save the server and token in the config file.",
      "The token comes from --token, --token-stdin or GITOPSHQ_TOKEN; --device signs in through"
          + " the hub's single sign-on (OIDC device flow) instead."
    })
final class LoginCommand extends Base implements Runnable {
  static class Source {
    @Option(names = "--token-stdin", description = "Read the token from standard input.")
    boolean stdin;

    @Option(
        names = "--device",
        description = "Sign in at the hub's OIDC provider: open the link shown, enter the code.")
    boolean device;
  }

  @ArgGroup(exclusive = true)
  Source source = new Source();

  @Override
  public void run() {
    Root root = root();
    String server = root.effectiveServer();
    if (server == null) {
      throw new CliException(ExitCode.USAGE, "login needs --server URL (or GITOPSHQ_SERVER)");
    }
    String token;
    if (source.device) {
      token = new DeviceFlow(root, server).signIn();
    } else if (source.stdin) {
      token = readStdin(root.stdin);
    } else {
      token = Root.firstNonBlank(root.token, root.env.get("GITOPSHQ_TOKEN"));
    }
    if (token == null || token.isBlank()) {
      throw new CliException(
          ExitCode.USAGE,
          "login needs a token: --token, --token-stdin, GITOPSHQ_TOKEN or --device");
    }
    HubClient hub = new HubClient(server, token, root.caFile);
    JsonNode me = hub.call(Endpoint.ME);
    Path file = root.configPath();
    ConfigFile.write(
        file,
        new ConfigFile.Settings(
            hub.server(),
            token,
            root.caFile == null ? null : root.caFile.toAbsolutePath().toString()));
    Output out = output();
    if (out.isTable()) {
      root.out.println(
          "Logged in to "
              + hub.server()
              + " as "
              + Output.oneLine(me.path("name").asText())
              + (me.path("role").isTextual() ? " (" + me.path("role").asText() + ")" : "")
              + " in organization "
              + Output.oneLine(me.path("org").path("slug").asText())
              + "; saved in "
              + file);
      root.out.flush();
    } else {
      out.raw(me);
    }
  }

  private static String readStdin(InputStream in) {
    try {
      byte[] b = in.readNBytes(4097);
      if (b.length > 4096) {
        throw new CliException(ExitCode.USAGE, "the token on standard input is over 4 KiB");
      }
      return new String(b, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new CliException(ExitCode.ERROR, "cannot read standard input: " + e.getMessage());
    }
  }

  static Map<String, String> noHeaders() {
    return Map.of();
  }
}
