package dev.gitopshq.hub.delivery;

import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.delivery.BindingMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.SourceMapper;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.activities.delivery.WorkloadMapper;
import dev.gitopshq.hub.config.HubProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the object model's store-side classes and the secret encryption key. */
@Configuration
public class DeliveryConfig {
  private static final Logger log = LoggerFactory.getLogger(DeliveryConfig.class);

  @Bean
  ProjectSnapshots projectSnapshots(
      ProjectMapper projects,
      ProjectEnvironmentMapper environments,
      ProjectTenantMapper tenants,
      WorkloadMapper workloads,
      VariableMapper variables,
      BindingMapper bindings,
      SourceMapper sources,
      ProjectFenceMapper fences) {
    return new ProjectSnapshots(
        projects, environments, tenants, workloads, variables, bindings, sources, fences);
  }

  /**
   * The box secrets the hub reads back (webhook secrets) are sealed in. The key is {@code
   * gitopshq.encryption-key} (GITOPSHQ_ENCRYPTION_KEY, base64 of 32 bytes). Without one, a key is
   * generated once into {@code <data dir>/encryption.key} (mode 0600): fine on one machine, but
   * replicas must share the key, so production sets it.
   */
  @Bean
  SecretBox secretBox(@Value("${gitopshq.encryption-key:}") String key, HubProperties props) {
    if (key != null && !key.isBlank()) {
      return SecretBox.ofBase64(key);
    }
    Path file = props.dataDir().resolve("encryption.key");
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(file.getParent());
        String generated = Base64.getEncoder().encodeToString(SecretBox.newKey());
        try {
          Files.createFile(
              file,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
          Files.writeString(file, generated + "\n", StandardCharsets.US_ASCII);
        } catch (FileAlreadyExistsException e) {
          // Another replica on the same data directory wrote it first: use theirs.
        } catch (UnsupportedOperationException e) {
          Files.writeString(file, generated + "\n", StandardCharsets.US_ASCII);
        }
        log.warn(
            "no encryption key configured: generated one into {}. Production must set"
                + " GITOPSHQ_ENCRYPTION_KEY (base64 of 32 bytes), the same on every replica.",
            file);
      }
      return SecretBox.ofBase64(Files.readString(file, StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the encryption key file " + file, e);
    }
  }
}
