package dev.gitopshq.hub.bootstrap;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** Runs {@link BootstrapOwner} once the context is ready. */
@Component
class BootstrapRunner implements ApplicationRunner {
  private final BootstrapOwner bootstrap;

  BootstrapRunner(BootstrapOwner bootstrap) {
    this.bootstrap = bootstrap;
  }

  @Override
  public void run(ApplicationArguments args) {
    bootstrap.run();
  }
}
