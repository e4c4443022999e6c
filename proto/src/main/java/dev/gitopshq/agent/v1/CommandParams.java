package dev.gitopshq.agent.v1;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a command request's params against its type's {@link CommandTypeSpec}: the hub answers the
 * problems with a 400 naming each field, and the CLI reports them before it calls the hub.
 */
public final class CommandParams {
  private CommandParams() {}

  /** One refused value: the field as the REST request names it (e.g. params.replicas) and why. */
  public record Problem(String field, String message) {}

  /** The accepted params as text (as {@code ExecuteCommand.params} carries them) and problems. */
  public record Checked(Map<String, String> values, List<Problem> problems) {
    public boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * Checks params typed as JSON gives them: whole numbers as {@link Integer} (larger ones as other
   * {@link Number}s, which are refused), text as {@link String}.
   */
  public static Checked check(CommandTypeSpec spec, Map<String, ?> params) {
    Map<String, ?> p = params == null ? Map.of() : params;
    List<Problem> problems = new ArrayList<>();
    Map<String, String> values = new LinkedHashMap<>();
    if (spec.getExactlyOneOfCount() > 0) {
      long given = spec.getExactlyOneOfList().stream().filter(k -> p.get(k) != null).count();
      if (given != 1) {
        problems.add(
            new Problem(
                "params",
                "give exactly one of "
                    + String.join(" or ", spec.getExactlyOneOfList())
                    + " for "
                    + spec.getName()));
      }
    }
    for (CommandParamSpec d : spec.getParamsList()) {
      Object v = p.get(d.getName());
      String field = "params." + d.getName();
      if (v == null) {
        if (d.getRequired()) {
          problems.add(new Problem(field, "is required for " + spec.getName()));
        }
        continue;
      }
      String text = accepted(d, v);
      if (text == null) {
        problems.add(new Problem(field, invalid(d)));
      } else {
        values.put(d.getName(), text);
      }
    }
    for (String k : p.keySet()) {
      if (spec.getParamsList().stream().noneMatch(d -> d.getName().equals(k))) {
        problems.add(new Problem("params." + k, "is not a parameter of this command type"));
      }
    }
    return new Checked(values, List.copyOf(problems));
  }

  /** The value as text when the declaration accepts it, else null. */
  private static String accepted(CommandParamSpec d, Object v) {
    return switch (d.getType()) {
      case INT ->
          v instanceof Integer n && n >= d.getMin() && (!d.hasMax() || n <= d.getMax())
              ? Integer.toString(n)
              : null;
      case STRING ->
          v instanceof String s && !s.isBlank() && s.length() <= d.getMaxLength() ? s : null;
      default -> null;
    };
  }

  /** The error for a value the declaration does not accept, with its bounds filled in. */
  public static String invalid(CommandParamSpec d) {
    String template = d.getInvalid();
    if (template.isEmpty()) {
      template =
          d.getType() == CommandParamSpec.Type.INT
              ? (d.hasMax()
                  ? "must be a whole number from {min} to {max}"
                  : "must be a whole number of at least {min}")
              : "must be text of at most {max_length} characters";
    }
    return template
        .replace("{min}", Integer.toString(d.getMin()))
        .replace("{max}", d.hasMax() ? Integer.toString(d.getMax()) : "")
        .replace("{max_length}", Integer.toString(d.getMaxLength()));
  }
}
