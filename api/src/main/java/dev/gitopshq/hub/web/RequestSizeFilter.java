package dev.gitopshq.hub.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Bounds every request body before anything reads it, first in the filter chain (before
 * authentication, so the unauthenticated webhook is bounded too). A declared {@code Content-Length}
 * over the route's limit ({@link RequestLimits}) is answered 413 at once, without reading the body;
 * a body without a length (chunked) is read through a stream that fails at the limit, which {@link
 * ApiExceptionHandler} answers with the same 413. Nothing past the limit is ever buffered.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestSizeFilter extends OncePerRequestFilter {
  private final RequestLimits limits;
  private final ObjectMapper json;

  public RequestSizeFilter(RequestLimits limits, ObjectMapper json) {
    this.limits = limits;
    this.json = json;
  }

  /** A body read past its route's limit. */
  public static final class BodyTooLargeException extends IOException {
    private final long limit;

    BodyTooLargeException(long limit) {
      super("the request body is larger than " + limit + " bytes");
      this.limit = limit;
    }

    public long limit() {
      return limit;
    }
  }

  /** The 413 every oversized body gets. */
  public static ApiError tooLarge(long limit) {
    return new ApiError(
        413,
        "payload_too_large",
        "the request body must be at most " + describe(limit) + " for this route",
        null);
  }

  static String describe(long bytes) {
    if (bytes % (1024 * 1024) == 0) {
      return bytes / (1024 * 1024) + " MiB";
    }
    if (bytes % 1024 == 0) {
      return bytes / 1024 + " KiB";
    }
    return bytes + " bytes";
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long limit = limits.limitFor(request.getMethod(), request.getRequestURI());
    long declared = request.getContentLengthLong();
    if (declared > limit) {
      response.setStatus(413);
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      // The body stays unread: tell the client the connection ends here.
      response.setHeader("Connection", "close");
      json.writeValue(response.getOutputStream(), tooLarge(limit));
      return;
    }
    chain.doFilter(new Limited(request, limit), response);
  }

  /** The request with a body stream that fails past the limit. */
  static final class Limited extends HttpServletRequestWrapper {
    private final long limit;
    private ServletInputStream stream;

    Limited(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new Counting(super.getInputStream(), limit);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      String encoding = getCharacterEncoding();
      return new BufferedReader(
          new InputStreamReader(
              getInputStream(),
              encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding)));
    }
  }

  static final class Counting extends ServletInputStream {
    private final ServletInputStream in;
    private final long limit;
    private long read;

    Counting(ServletInputStream in, long limit) {
      this.in = in;
      this.limit = limit;
    }

    private void count(long n) throws BodyTooLargeException {
      if (n > 0) {
        read += n;
        if (read > limit) {
          throw new BodyTooLargeException(limit);
        }
      }
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      count(n);
      return n;
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
