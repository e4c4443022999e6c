package dev.gitopshq.agent.link;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tiny real HTTP CONNECT proxy on a loopback port: it reads the CONNECT request, records the
 * target and the Proxy-Authorization header, optionally demands credentials (407), answers {@code
 * 200 Connection established} and pipes bytes both ways. Names in {@link #hosts} are resolved by
 * the proxy only, so a test can give the hub a name the agent itself cannot resolve.
 */
final class ConnectProxy implements AutoCloseable {

  /** One CONNECT request as the proxy saw it. */
  static final class Tunnel {
    final String requestLine;
    final String target;
    final Map<String, String> headers;
    final AtomicLong bytesUp = new AtomicLong();
    final AtomicLong bytesDown = new AtomicLong();
    final ByteArrayOutputStream firstBytesUp = new ByteArrayOutputStream();

    Tunnel(String requestLine, String target, Map<String, String> headers) {
      this.requestLine = requestLine;
      this.target = target;
      this.headers = headers;
    }

    Optional<String> proxyAuthorization() {
      return Optional.ofNullable(headers.get("proxy-authorization"));
    }

    /** The first bytes the client sent through the tunnel (up to 64). */
    String firstBytesUp() {
      synchronized (firstBytesUp) {
        return firstBytesUp.toString(StandardCharsets.ISO_8859_1);
      }
    }
  }

  final List<Tunnel> tunnels = new CopyOnWriteArrayList<>();

  /** Host names the proxy resolves itself, e.g. {@code hub.gitopshq.test -> 127.0.0.1}. */
  final Map<String, InetAddress> hosts = new ConcurrentHashMap<>();

  /** If set, CONNECT requests without exactly this Proxy-Authorization value get a 407. */
  volatile String requiredAuthorization;

  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  ConnectProxy() {
    try {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::acceptLoop, "connect-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** {@code http://127.0.0.1:<port>}, optionally with user-info before the host. */
  String url(String userInfo) {
    return "http://" + (userInfo == null ? "" : userInfo + "@") + "127.0.0.1:" + port();
  }

  String url() {
    return url(null);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        sockets.add(client);
        Thread handler = new Thread(() -> handle(client), "connect-proxy-client");
        handler.setDaemon(true);
        handler.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void handle(Socket client) {
    try {
      InputStream in = client.getInputStream();
      OutputStream out = client.getOutputStream();
      String requestLine = readLine(in);
      Map<String, String> headers = new LinkedHashMap<>();
      for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
        int colon = line.indexOf(':');
        if (colon > 0) {
          headers.put(
              line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
              line.substring(colon + 1).trim());
        }
      }
      String[] parts = requestLine.split(" ");
      if (parts.length != 3 || !parts[0].equals("CONNECT")) {
        respond(out, "405 Method Not Allowed");
        client.close();
        return;
      }
      Tunnel tunnel = new Tunnel(requestLine, parts[1], headers);
      tunnels.add(tunnel);
      String required = requiredAuthorization;
      if (required != null && !required.equals(headers.get("proxy-authorization"))) {
        out.write(
            ("HTTP/1.1 407 Proxy Authentication Required\r\n"
                    + "Proxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        client.close();
        return;
      }
      int colon = tunnel.target.lastIndexOf(':');
      String host = tunnel.target.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port = Integer.parseInt(tunnel.target.substring(colon + 1));
      InetAddress address = hosts.containsKey(host) ? hosts.get(host) : InetAddress.getByName(host);
      Socket upstream = new Socket();
      sockets.add(upstream);
      try {
        upstream.connect(new InetSocketAddress(address, port), 2000);
      } catch (IOException e) {
        respond(out, "502 Bad Gateway");
        client.close();
        return;
      }
      respond(out, "200 Connection established");
      pipe(upstream.getInputStream(), out, tunnel.bytesDown, null, client, upstream);
      pipe(in, upstream.getOutputStream(), tunnel.bytesUp, tunnel.firstBytesUp, client, upstream);
    } catch (IOException | RuntimeException e) {
      closeQuietly(client);
    }
  }

  private static void respond(OutputStream out, String status) throws IOException {
    out.write(("HTTP/1.1 " + status + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private void pipe(
      InputStream from,
      OutputStream to,
      AtomicLong counter,
      ByteArrayOutputStream firstBytes,
      Socket a,
      Socket b) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                for (int n = from.read(buffer); n >= 0; n = from.read(buffer)) {
                  if (firstBytes != null) {
                    synchronized (firstBytes) {
                      firstBytes.write(buffer, 0, Math.min(n, Math.max(0, 64 - firstBytes.size())));
                    }
                  }
                  to.write(buffer, 0, n);
                  to.flush();
                  counter.addAndGet(n);
                }
              } catch (IOException e) {
                // One side went away; close both below.
              } finally {
                closeQuietly(a);
                closeQuietly(b);
              }
            },
            "connect-proxy-pipe");
    thread.setDaemon(true);
    thread.start();
  }

  /** Reads one CRLF- or LF-terminated header line, byte by byte so no tunnel data is consumed. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("connection closed inside the CONNECT request");
      }
      if (line.size() > 8192) {
        throw new IOException("header line too long");
      }
      line.write(b);
    }
    String text = line.toString(StandardCharsets.ISO_8859_1);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Nothing to do.
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // Nothing to do.
    }
    sockets.forEach(ConnectProxy::closeQuietly);
  }
}
