package dev.gitopshq.hub.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy between the agent and a hub, for fault injection: it can refuse new
 * connections (the agent is cut off), hold what the agent sends (its bytes wait in the proxy, as in
 * a network that stopped forwarding one way) and drop every connection, with what it held.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean refusing;
  private boolean holdingUp;
  private boolean holdingDown;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("tcp-proxy-accept").start(this::accept);
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (refusing) {
          client.close();
          continue;
        }
        Socket upstream = new Socket();
        try {
          upstream.connect(
              new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
        } catch (IOException down) {
          client.close();
          continue;
        }
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, true);
        pump(upstream, client, false);
      } catch (IOException e) {
        // Closed, or one connection failed: the next accept decides.
      }
    }
  }

  private void pump(Socket from, Socket to, boolean fromAgent) {
    Thread.ofPlatform()
        .daemon()
        .name("tcp-proxy-" + (fromAgent ? "up" : "down"))
        .start(
            () -> {
              byte[] buf = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  awaitForwarding(from, fromAgent);
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // One side went away: both go.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            });
  }

  private synchronized void awaitForwarding(Socket from, boolean fromAgent)
      throws InterruptedException, IOException {
    while (fromAgent ? holdingUp : holdingDown) {
      if (from.isClosed()) {
        throw new IOException("dropped while held");
      }
      wait(50);
    }
  }

  /** From now on new connections are closed at once. */
  void refuse(boolean refuse) {
    this.refusing = refuse;
  }

  /** The agent's bytes stay in the proxy until {@link #forward()}. */
  synchronized void hold() {
    holdingUp = true;
  }

  /** A partition: nothing passes either way until {@link #forward()}; connections stay open. */
  synchronized void partition() {
    holdingUp = true;
    holdingDown = true;
  }

  synchronized void forward() {
    holdingUp = false;
    holdingDown = false;
    notifyAll();
  }

  /** Closes every open connection; what was held is lost. */
  void dropAll() {
    sockets.forEach(TcpProxy::closeQuietly);
    sockets.clear();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already gone.
    }
  }

  @Override
  public void close() {
    refusing = true;
    try {
      server.close();
    } catch (IOException e) {
      // Already closed.
    }
    forward();
    dropAll();
  }
}
