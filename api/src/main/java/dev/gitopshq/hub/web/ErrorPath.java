package dev.gitopshq.hub.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code /error} is where the servlet container sends a request that failed; asked for directly it
 * is not a resource, and answers 404 in the API's error shape instead of Spring's error page
 * reporting a 500 that never happened.
 */
@Configuration
public class ErrorPath {
  static final String PATH = "/error";

  @Bean
  FilterRegistrationBean<OncePerRequestFilter> directErrorRequests(ObjectMapper json) {
    OncePerRequestFilter filter =
        new OncePerRequestFilter() {
          @Override
          protected void doFilterInternal(
              HttpServletRequest request, HttpServletResponse response, FilterChain chain)
              throws IOException {
            response.setStatus(404);
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            json.writeValue(
                response.getOutputStream(),
                new ApiError(404, "not_found", PATH + " not found", null));
          }
        };
    FilterRegistrationBean<OncePerRequestFilter> bean = new FilterRegistrationBean<>(filter);
    bean.setName("directErrorRequests");
    bean.addUrlPatterns(PATH);
    // Only a request that names /error itself: the container's own ERROR dispatch passes by.
    bean.setDispatcherTypes(DispatcherType.REQUEST);
    return bean;
  }
}
