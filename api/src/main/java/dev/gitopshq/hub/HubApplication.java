package dev.gitopshq.hub;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The GitOpsHQ hub: REST API, agent gRPC gateway and Temporal worker in one process. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class HubApplication {
  public static void main(String[] args) {
    SpringApplication.run(HubApplication.class, args);
  }
}
