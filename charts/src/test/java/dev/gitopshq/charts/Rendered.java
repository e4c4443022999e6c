package dev.gitopshq.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The objects of one {@code helm template} run, as Fabric8 model objects. */
public final class Rendered {
  static final YAMLMapper YAML = new YAMLMapper();
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  private final String manifest;
  private final List<HasMetadata> objects;

  private Rendered(String manifest, List<HasMetadata> objects) {
    this.manifest = manifest;
    this.objects = List.copyOf(objects);
  }

  static Rendered parse(String manifest) {
    List<HasMetadata> objects = new ArrayList<>();
    try (MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(manifest)) {
      while (docs.hasNext()) {
        JsonNode doc = docs.next();
        if (doc == null || doc.isNull() || doc.isEmpty()) {
          continue;
        }
        if (!doc.hasNonNull("apiVersion") || !doc.hasNonNull("kind")) {
          throw new AssertionError("a rendered document without apiVersion/kind: " + doc);
        }
        objects.add(KUBE.convertValue(doc, HasMetadata.class));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the chart rendered invalid YAML:\n" + manifest, e);
    }
    return new Rendered(manifest, objects);
  }

  /** The manifest text as Helm printed it. */
  public String manifest() {
    return manifest;
  }

  public List<HasMetadata> objects() {
    return objects;
  }

  /** Every rendered object as {@code Kind/name}, or {@code Kind/namespace/name} when namespaced. */
  public List<String> names() {
    return objects.stream()
        .map(
            o ->
                o.getKind()
                    + "/"
                    + (o.getMetadata().getNamespace() == null
                        ? ""
                        : o.getMetadata().getNamespace() + "/")
                    + o.getMetadata().getName())
        .toList();
  }

  public <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  public <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return all(type).stream().filter(o -> name.equals(o.getMetadata().getName())).findFirst();
  }

  public <T extends HasMetadata> T get(Class<T> type, String name) {
    return find(type, name)
        .orElseThrow(
            () -> new AssertionError("no " + type.getSimpleName() + " " + name + " in " + names()));
  }

  /** The one Deployment. */
  public Deployment deployment() {
    List<Deployment> deployments = all(Deployment.class);
    if (deployments.size() != 1) {
      throw new AssertionError("expected one Deployment, got " + names());
    }
    return deployments.get(0);
  }

  /** The Deployment's only container. */
  public Container container() {
    List<Container> containers = deployment().getSpec().getTemplate().getSpec().getContainers();
    if (containers.size() != 1) {
      throw new AssertionError("expected one container, got " + containers.size());
    }
    return containers.get(0);
  }

  /** The container's env entries by name (in order); fails on a duplicate name. */
  public Map<String, EnvVar> env() {
    Map<String, EnvVar> env = new LinkedHashMap<>();
    for (EnvVar var : container().getEnv()) {
      if (env.put(var.getName(), var) != null) {
        throw new AssertionError("env var " + var.getName() + " is set twice");
      }
    }
    return env;
  }

  /**
   * The environment the container would see: plain values, ConfigMap and Secret keys looked up in
   * the rendered objects, {@code metadata.namespace} from the Downward API ({@code status.podIP} as
   * {@code fieldRef:status.podIP}). A reference to an object the chart did not render fails the
   * test.
   */
  public Map<String, String> resolvedEnv() {
    String namespace = deployment().getMetadata().getNamespace();
    Map<String, String> resolved = new LinkedHashMap<>();
    for (EnvVar var : env().values()) {
      resolved.put(var.getName(), resolve(var, namespace));
    }
    return resolved;
  }

  private String resolve(EnvVar var, String namespace) {
    if (var.getValueFrom() == null) {
      return var.getValue();
    }
    var from = var.getValueFrom();
    if (from.getConfigMapKeyRef() != null) {
      ConfigMap cm = get(ConfigMap.class, from.getConfigMapKeyRef().getName());
      return requireKey(
          cm.getData(),
          from.getConfigMapKeyRef().getKey(),
          "ConfigMap " + cm.getMetadata().getName());
    }
    if (from.getSecretKeyRef() != null) {
      return secretValue(from.getSecretKeyRef().getName(), from.getSecretKeyRef().getKey());
    }
    if (from.getFieldRef() != null
        && "metadata.namespace".equals(from.getFieldRef().getFieldPath())) {
      return namespace;
    }
    if (from.getFieldRef() != null && "status.podIP".equals(from.getFieldRef().getFieldPath())) {
      // Known only in the running pod: named.
      return "fieldRef:status.podIP";
    }
    throw new AssertionError("cannot resolve env var " + var.getName() + ": " + from);
  }

  /** A key of a rendered Secret, decoded. */
  public String secretValue(String secretName, String key) {
    Secret secret = get(Secret.class, secretName);
    if (secret.getStringData() != null && secret.getStringData().containsKey(key)) {
      return secret.getStringData().get(key);
    }
    String encoded = requireKey(secret.getData(), key, "Secret " + secretName);
    return new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
  }

  private static String requireKey(Map<String, String> data, String key, String what) {
    if (data == null || !data.containsKey(key)) {
      throw new AssertionError(what + " has no key " + key);
    }
    return data.get(key);
  }
}
