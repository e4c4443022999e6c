package dev.gitopshq.activities.git;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * The structured message of every commit the hub writes: a readable description as the subject, an
 * optional body, and trailers stating who made the change, what it touched and what kind of change
 * it was.
 *
 * <pre>
 * Set values of web for acme in production
 *
 * GitOpsHQ-Author: Ada Admin (member 3f2c...)
 * GitOpsHQ-Scope: project=shop environment=production tenant=acme service=web
 * GitOpsHQ-Change: values.updated
 * </pre>
 *
 * @param description one line for people; the subject
 * @param body more lines, or empty
 * @param author who made the change, e.g. {@code Ada Admin (member 3f2c...)}
 * @param scope what the change touched, in order, e.g. project, environment, tenant, service
 * @param change the kind of change, e.g. {@code workload.created}
 */
public record CommitMessage(
    String description, String body, String author, Map<String, String> scope, String change) {
  public static final String AUTHOR = "GitOpsHQ-Author";
  public static final String SCOPE = "GitOpsHQ-Scope";
  public static final String CHANGE = "GitOpsHQ-Change";

  public CommitMessage {
    scope = scope == null ? Map.of() : scope;
  }

  public String format() {
    StringBuilder b = new StringBuilder(oneLine(description)).append("\n\n");
    if (body != null && !body.isBlank()) {
      b.append(body.strip()).append("\n\n");
    }
    b.append(AUTHOR).append(": ").append(oneLine(author)).append('\n');
    b.append(SCOPE)
        .append(": ")
        .append(
            scope.entrySet().stream()
                .map(e -> e.getKey() + "=" + oneLine(e.getValue()))
                .collect(Collectors.joining(" ")))
        .append('\n');
    b.append(CHANGE).append(": ").append(oneLine(change)).append('\n');
    return b.toString();
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("[\\r\\n]+", " ").strip();
  }
}
