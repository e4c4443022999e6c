package dev.gitopshq.hub;

import dev.gitopshq.hub.git.migration.MigrateGitStorageCommand;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The GitOpsHQ hub: REST API, agent gRPC gateway and Temporal worker in one process. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class HubApplication {
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals(MigrateGitStorageCommand.NAME)) {
      // An operator's one-off command: runs, prints, exits; serves nothing.
      System.exit(
          MigrateGitStorageCommand.run(
              Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
    }
    SpringApplication.run(HubApplication.class, args);
  }
}
