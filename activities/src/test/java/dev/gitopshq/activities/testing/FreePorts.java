package dev.gitopshq.activities.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ports for servers a test starts. A port is often bound seconds after it is chosen (a child JVM, a
 * hub starting), and the kernel may offer it again in that window: two development providers once
 * started on one port, and the one that won answered for both. So a port is handed out once per
 * JVM.
 */
public final class FreePorts {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  /** A port nothing listens on now and that this JVM has not handed out before. */
  public static int next() throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket s = new ServerSocket(0)) {
        s.setReuseAddress(true);
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      }
    }
    throw new IOException("no free port left that this JVM has not handed out already");
  }
}
