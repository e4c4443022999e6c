package dev.gitopshq.hub.git;

import dev.gitopshq.activities.git.FileRepoStore;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.RepoStore;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.hub.config.GitProperties;
import jakarta.servlet.http.HttpServletRequest;
import javax.sql.DataSource;
import org.eclipse.jgit.http.server.GitServlet;
import org.eclipse.jgit.http.server.resolver.AsIsFileService;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.transport.resolver.ReceivePackFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The hosted repositories' store (files or PostgreSQL, {@link GitProperties#storage()}), and their
 * read-only smart-HTTP endpoint at {@code /git/*} (JGit's {@link GitServlet} behind {@link
 * GitAuthFilter}).
 */
@Configuration
public class GitConfig {
  /**
   * Where the Git endpoint is mounted; clone URLs are {@code <public url>/git/<org>/<project>.git}.
   */
  static final String MAPPING = "/git/*";

  /** The repositories, in the storage GITOPSHQ_GIT_STORAGE names. */
  @Bean(destroyMethod = "close")
  ProjectRepos projectRepos(GitProperties props, DataSource dataSource) {
    RepoStore store =
        switch (props.storage()) {
          case "postgres" -> new PostgresRepoStore(dataSource, props.blockCacheMb());
          default -> new FileRepoStore(props.root());
        };
    return new ProjectRepos(store);
  }

  @Bean
  ServletRegistrationBean<GitServlet> gitServlet(ProjectRepos repos) {
    GitServlet servlet = new GitServlet();
    servlet.setRepositoryResolver(new ProjectRepoResolver(repos));
    servlet.setUploadPackFactory((req, db) -> new UploadPack(db));
    // Read-only: the filter already refuses pushes; this keeps JGit from ever accepting one.
    @SuppressWarnings("unchecked")
    ReceivePackFactory<HttpServletRequest> disabled =
        (ReceivePackFactory<HttpServletRequest>) ReceivePackFactory.DISABLED;
    servlet.setReceivePackFactory(disabled);
    // No dumb HTTP: files of the repository are never served as they are.
    servlet.setAsIsFileService(AsIsFileService.DISABLED);
    ServletRegistrationBean<GitServlet> bean = new ServletRegistrationBean<>(servlet, MAPPING);
    bean.setName("git");
    bean.setLoadOnStartup(1);
    return bean;
  }

  @Bean
  FilterRegistrationBean<GitAuthFilter> gitAuthFilter(GitAccess access) {
    FilterRegistrationBean<GitAuthFilter> bean =
        new FilterRegistrationBean<>(new GitAuthFilter(access));
    bean.setName("gitAuth");
    bean.addUrlPatterns(MAPPING);
    return bean;
  }
}
