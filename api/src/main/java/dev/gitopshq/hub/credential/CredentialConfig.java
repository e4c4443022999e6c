package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.activities.crypto.SecretBox;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Credentials are sealed with the hub's one encryption key (gitopshq.encryption-key). */
@Configuration
public class CredentialConfig {
  @Bean
  CredentialVault credentialVault(SecretBox box) {
    return new CredentialVault(box);
  }
}
