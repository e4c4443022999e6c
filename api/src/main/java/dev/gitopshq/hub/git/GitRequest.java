package dev.gitopshq.hub.git;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request to a hosted repository, parsed from its URL: {@code /git/<org slug>/<project>.git/}
 * followed by one smart-HTTP endpoint. Anything else (more or fewer segments, encoded characters,
 * {@code .} or {@code ..} segments, names that are not RFC 1123 labels) does not parse, so it can
 * never name a directory of the repository root, let alone one outside it.
 *
 * @param orgSlug the organization's slug
 * @param project the project's name
 * @param service what the client asks for
 */
public record GitRequest(String orgSlug, String project, Service service) {
  /** The smart-HTTP endpoints a client may call. */
  public enum Service {
    /** {@code GET info/refs?service=git-upload-pack}: the ref advertisement of a fetch. */
    UPLOAD_PACK_REFS,
    /** {@code POST git-upload-pack}: the pack negotiation of a fetch. */
    UPLOAD_PACK,
    /** {@code info/refs?service=git-receive-pack} or {@code git-receive-pack}: a push, refused. */
    RECEIVE_PACK,
    /** {@code info/refs} without a service: the dumb protocol, not served. */
    DUMB
  }

  private static final String LABEL = "[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?";

  private static final Pattern PATH =
      Pattern.compile(
          "/git/("
              + LABEL
              + ")/("
              + LABEL
              + ")\\.git/(info/refs|git-upload-pack|git-receive-pack)");

  /** The repository's name as JGit's servlet hands it to the resolver. */
  public String repositoryName() {
    return orgSlug + "/" + project + ".git";
  }

  /**
   * Parses a request.
   *
   * @param rawPath the request URI as sent, without the context path and the query (not decoded, so
   *     an encoded {@code %2e%2e} or {@code %2f} is refused rather than interpreted)
   * @param query the raw query string, or null
   */
  public static Optional<GitRequest> parse(String rawPath, String query) {
    if (rawPath == null) {
      return Optional.empty();
    }
    Matcher m = PATH.matcher(rawPath);
    if (!m.matches()) {
      return Optional.empty();
    }
    Service service =
        switch (m.group(3)) {
          case "git-upload-pack" -> Service.UPLOAD_PACK;
          case "git-receive-pack" -> Service.RECEIVE_PACK;
          default -> infoRefs(query);
        };
    return Optional.of(new GitRequest(m.group(1), m.group(2), service));
  }

  private static Service infoRefs(String query) {
    if (query == null) {
      return Service.DUMB;
    }
    for (String param : query.split("&")) {
      if (param.equals("service=git-upload-pack")) {
        return Service.UPLOAD_PACK_REFS;
      }
      if (param.equals("service=git-receive-pack")) {
        return Service.RECEIVE_PACK;
      }
    }
    return Service.DUMB;
  }
}
