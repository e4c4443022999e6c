package dev.gitopshq.hub;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The hub's REST endpoints as Spring maps them, for the matrix tests that call every one of them
 * (another organization's objects, objects without a grant).
 */
public final class HubEndpoints {
  private HubEndpoints() {}

  /** One method on one path pattern; the pattern may carry variables with regexes. */
  public record Endpoint(String method, String pattern) {
    /** Method and pattern without the variables' regexes: {@code PATCH /api/v2/clusters/{id}}. */
    public String key() {
      return method + " " + variables(pattern, variable -> "{" + variable + "}");
    }
  }

  /**
   * Every endpoint of the running hub whose pattern starts with {@code prefix}; a choice of
   * literals in a pattern ({@code {collection:a|b}}) is one endpoint per literal.
   */
  public static List<Endpoint> under(HubTestSupport hub, String prefix) {
    RequestMappingHandlerMapping mapping =
        hub.context().getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    Set<String> seen = new TreeSet<>();
    List<Endpoint> out = new ArrayList<>();
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      for (String declared : info.getPatternValues()) {
        for (String pattern : alternatives(declared)) {
          if (!pattern.startsWith(prefix)) {
            continue;
          }
          Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
          for (RequestMethod m : methods.isEmpty() ? Set.of(RequestMethod.GET) : methods) {
            if (seen.add(m + " " + pattern)) {
              out.add(new Endpoint(m.name(), pattern));
            }
          }
        }
      }
    }
    return out;
  }

  static final Pattern CHOICE = Pattern.compile("\\{[^}/:]+:([a-z-]+(\\|[a-z-]+)+)}");

  /** A pattern with a choice of literals ({@code {collection:a|b}}) as one pattern per literal. */
  static List<String> alternatives(String pattern) {
    Matcher m = CHOICE.matcher(pattern);
    if (!m.find()) {
      return List.of(pattern);
    }
    List<String> out = new ArrayList<>();
    for (String literal : m.group(1).split("\\|")) {
      out.addAll(
          alternatives(pattern.substring(0, m.start()) + literal + pattern.substring(m.end())));
    }
    return out;
  }

  /**
   * The pattern with each path variable, regex and all, replaced by what {@code with} gives for its
   * name. A variable's regex may have braces of its own ({@code {findingId:[0-9a-f]{8}-...}}), so
   * braces are matched by depth.
   */
  public static String variables(String pattern, UnaryOperator<String> with) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i);
      if (c != '{') {
        out.append(c);
        i++;
        continue;
      }
      int depth = 0;
      int end = i;
      do {
        char d = pattern.charAt(end);
        depth += d == '{' ? 1 : d == '}' ? -1 : 0;
        end++;
      } while (depth > 0);
      out.append(with.apply(pattern.substring(i + 1, end - 1).split(":", 2)[0]));
      i = end;
    }
    return out.toString();
  }
}
