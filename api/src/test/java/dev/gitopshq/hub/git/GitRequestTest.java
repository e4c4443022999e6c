package dev.gitopshq.hub.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.hub.git.GitRequest.Service;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which URLs name a hosted repository's smart-HTTP endpoint, and which name nothing. */
class GitRequestTest {

  @Test
  void parsesTheSmartHttpEndpointsOfARepository() {
    assertThat(GitRequest.parse("/git/default/shop.git/info/refs", "service=git-upload-pack"))
        .contains(new GitRequest("default", "shop", Service.UPLOAD_PACK_REFS));
    assertThat(GitRequest.parse("/git/default/shop.git/git-upload-pack", null))
        .contains(new GitRequest("default", "shop", Service.UPLOAD_PACK));
    assertThat(GitRequest.parse("/git/acme-eu/web-2.git/info/refs", "service=git-receive-pack"))
        .contains(new GitRequest("acme-eu", "web-2", Service.RECEIVE_PACK));
    assertThat(GitRequest.parse("/git/default/shop.git/git-receive-pack", null))
        .contains(new GitRequest("default", "shop", Service.RECEIVE_PACK));
    assertThat(GitRequest.parse("/git/default/shop.git/info/refs", null))
        .contains(new GitRequest("default", "shop", Service.DUMB));
    assertThat(GitRequest.parse("/git/default/shop.git/info/refs", "service=other"))
        .contains(new GitRequest("default", "shop", Service.DUMB));
    assertThat(new GitRequest("default", "shop", Service.UPLOAD_PACK).repositoryName())
        .isEqualTo("default/shop.git");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/git/default/shop.git",
        "/git/default/shop.git/",
        "/git/default/shop/info/refs",
        "/git/default/../shop.git/info/refs",
        "/git/../default/shop.git/info/refs",
        "/git/%2e%2e/default/shop.git/info/refs",
        "/git/default/%2e%2e.git/info/refs",
        "/git/default/shop.git/../../etc/info/refs",
        "/git/default/shop.git/info/../../../etc/passwd",
        "/git/default%2fshop.git/info/refs",
        "/git/default/sub/shop.git/info/refs",
        "/git//shop.git/info/refs",
        "/git/default//shop.git/info/refs",
        "/git/Default/shop.git/info/refs",
        "/git/default/-shop.git/info/refs",
        "/git/default/shop-.git/info/refs",
        "/git/default/sh.op.git/info/refs",
        "/git/default/shop.git/HEAD",
        "/git/default/shop.git/config",
        "/git/default/shop.git/objects/info/packs",
        "/git/default/shop.git/objects/pack/pack-0.pack",
        "/git/default/shop.git/info/refs/",
        "/git/default/shop.git/git-upload-pack/x",
        "/git/default/shop.git;x=y/info/refs",
        "/git/default/shop.git\\info\\refs",
        "/git/default/shop.git/info/refs\u0000",
        "/git/0123456789012345678901234567890123456789012345678901234567890123/p.git/info/refs",
        "/api/v2/projects",
        ""
      })
  void anythingElseNamesNoRepository(String path) {
    assertThat(GitRequest.parse(path, "service=git-upload-pack")).isEmpty();
  }

  @Test
  void aNullPathNamesNoRepository() {
    assertThat(GitRequest.parse(null, null)).isEmpty();
  }
}
