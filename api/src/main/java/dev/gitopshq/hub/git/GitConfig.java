package dev.gitopshq.hub.git;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.hub.config.GitProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The hosted repositories' store. */
@Configuration
public class GitConfig {
  @Bean(destroyMethod = "close")
  ProjectRepos projectRepos(GitProperties props) {
    return new ProjectRepos(props.root());
  }
}
