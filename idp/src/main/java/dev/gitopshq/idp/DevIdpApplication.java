package dev.gitopshq.idp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A small OpenID Connect provider for development and tests: Spring Authorization Server with
 * in-memory users (and their groups) and clients from {@link IdpProperties}. {@code make run}
 * starts it so the hub's SSO works out of the box; the hub's SSO integration tests start it as a
 * child JVM. It keeps everything in memory and is not meant for production.
 */
@SpringBootApplication
@EnableConfigurationProperties(IdpProperties.class)
public class DevIdpApplication {
  public static void main(String[] args) {
    SpringApplication.run(DevIdpApplication.class, args);
  }
}
