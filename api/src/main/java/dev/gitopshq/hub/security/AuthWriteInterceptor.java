package dev.gitopshq.hub.security;

import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberSessionMapper;
import dev.gitopshq.activities.identity.ServiceAccountMapper;
import dev.gitopshq.activities.org.OrgMapper;
import java.util.List;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Empties this hub's {@link AuthCache} on every write through the mappers of tokens, sessions,
 * members, service accounts and organizations (but a token's {@code touch}, which only records its
 * use): right after the statement, and once more after the transaction commits, so the answer to a
 * revocation is sent only once this hub refuses the token. Other hubs learn of it from PostgreSQL
 * ({@link AuthChanges}).
 */
@Component
@Intercepts(
    @Signature(
        type = Executor.class,
        method = "update",
        args = {MappedStatement.class, Object.class}))
public class AuthWriteInterceptor implements Interceptor {
  private static final List<String> MAPPERS =
      List.of(
              ApiTokenMapper.class,
              MemberSessionMapper.class,
              MemberMapper.class,
              ServiceAccountMapper.class,
              OrgMapper.class)
          .stream()
          .map(c -> c.getName() + ".")
          .toList();
  private static final String TOUCH = ApiTokenMapper.class.getName() + ".touch";

  private final AuthCache cache;

  public AuthWriteInterceptor(AuthCache cache) {
    this.cache = cache;
  }

  @Override
  public Object intercept(Invocation invocation) throws Throwable {
    Object result = invocation.proceed();
    String id = ((MappedStatement) invocation.getArgs()[0]).getId();
    if (!id.equals(TOUCH) && MAPPERS.stream().anyMatch(id::startsWith)) {
      cache.invalidateAll();
      if (TransactionSynchronizationManager.isSynchronizationActive()) {
        TransactionSynchronizationManager.registerSynchronization(
            new TransactionSynchronization() {
              @Override
              public void afterCompletion(int status) {
                cache.invalidateAll();
              }
            });
      }
    }
    return result;
  }
}
