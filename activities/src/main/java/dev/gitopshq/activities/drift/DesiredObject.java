package dev.gitopshq.activities.drift;

import java.util.UUID;

/**
 * One object a deployment delivered to a cluster: a YAML document of a file of {@code
 * deploy/<environment>} under {@code <cluster>/<tenant>/}.
 *
 * @param sourcePath the file's path on the deploy branch
 * @param manifest the object as JSON
 */
public record DesiredObject(
    UUID projectId,
    String project,
    String environment,
    String tenant,
    String sourcePath,
    String group,
    String version,
    String kind,
    String namespace,
    String name,
    String manifest) {

  public String key() {
    return key(group, kind, namespace, name);
  }

  static String key(String group, String kind, String namespace, String name) {
    return group + "/" + kind + "/" + namespace + "/" + name;
  }
}
