package dev.gitopshq.agent.v1;

import com.google.protobuf.Descriptors.EnumValueDescriptor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command types the hub sends in {@code ExecuteCommand.type}, read from their one declaration:
 * the {@code (spec)} option of each {@link CommandType} value in {@code command_types.proto}. The
 * hub's request validation and policy checks, the agent's runner and the CLI all derive from this
 * registry; nothing here repeats what the proto says.
 */
public final class CommandTypes {
  private static final Map<String, CommandType> TYPES;
  private static final Map<CommandType, CommandTypeSpec> SPECS;

  static {
    Map<String, CommandType> types = new LinkedHashMap<>();
    Map<CommandType, CommandTypeSpec> specs = new LinkedHashMap<>();
    for (EnumValueDescriptor v : CommandType.getDescriptor().getValues()) {
      CommandType t = CommandType.valueOf(v);
      if (t == CommandType.COMMAND_TYPE_UNSPECIFIED) {
        continue;
      }
      if (!v.getOptions().hasExtension(CommandTypesProto.spec)) {
        throw new IllegalStateException(v.getName() + " has no (spec) in command_types.proto");
      }
      CommandTypeSpec s = v.getOptions().getExtension(CommandTypesProto.spec);
      if (types.put(s.getName(), t) != null) {
        throw new IllegalStateException("command type " + s.getName() + " is declared twice");
      }
      specs.put(t, s);
    }
    TYPES = Collections.unmodifiableMap(types);
    SPECS = Collections.unmodifiableMap(specs);
  }

  /**
   * resolve-drift: re-applies a drift finding's desired state with server-side apply ({@code
   * direct.deploy}), or, when an Argo CD Application manages the object (param {@value
   * #PARAM_APPLICATION}), asks Argo CD to sync it ({@code argocd.write}).
   */
  public static final String RESOLVE_DRIFT = name(CommandType.COMMAND_TYPE_RESOLVE_DRIFT);

  /** resolve-drift: the drift finding's id. */
  public static final String PARAM_FINDING = "findingId";

  /** resolve-drift: the managing Argo CD Application as namespace/name, when there is one. */
  public static final String PARAM_APPLICATION = "application";

  /** resolve-drift: the field manager of the server-side apply. */
  public static final String PARAM_FIELD_MANAGER = "fieldManager";

  /**
   * Each command type's name and the capability an agent must report to run it, in the API's order.
   */
  public static final Map<String, String> REQUIRED_CAPABILITY;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    SPECS.values().forEach(s -> m.put(s.getName(), s.getCapability()));
    REQUIRED_CAPABILITY = Collections.unmodifiableMap(m);
  }

  /** Every command type's name, in the API's order. */
  public static final List<String> ALL = List.copyOf(TYPES.keySet());

  private CommandTypes() {}

  /** Every command type's spec, in the API's order. */
  public static List<CommandTypeSpec> specs() {
    return List.copyOf(SPECS.values());
  }

  /** The types a person asks for through the commands API (not, e.g., resolve-drift). */
  public static List<CommandTypeSpec> requestable() {
    return SPECS.values().stream().filter(s -> s.getRequestedElsewhere().isEmpty()).toList();
  }

  /** The catalog docs/command-types.json is generated from. */
  public static CommandTypeCatalog catalog() {
    return CommandTypeCatalog.newBuilder().addAllTypes(SPECS.values()).build();
  }

  /** The type of this wire name, if this version of the protocol knows it. */
  public static Optional<CommandType> type(String name) {
    return Optional.ofNullable(name == null ? null : TYPES.get(name));
  }

  /** The spec of this wire name, if this version of the protocol knows it. */
  public static Optional<CommandTypeSpec> spec(String name) {
    return type(name).map(SPECS::get);
  }

  /** The spec of a type; throws for {@code COMMAND_TYPE_UNSPECIFIED} and unrecognized values. */
  public static CommandTypeSpec spec(CommandType type) {
    CommandTypeSpec s = SPECS.get(type);
    if (s == null) {
      throw new IllegalArgumentException(type + " is not a command type");
    }
    return s;
  }

  /** The wire name of a type, e.g. {@code scale}. */
  public static String name(CommandType type) {
    return spec(type).getName();
  }

  /** True for a command type this version of the protocol knows. */
  public static boolean isKnown(String type) {
    return type != null && TYPES.containsKey(type);
  }

  /**
   * The capability a command with these params needs: the type's, unless a param it declares with
   * {@code capability_when_set} is given (a resolve-drift through Argo CD needs {@code
   * argocd.write} instead of {@code direct.deploy}).
   */
  public static Optional<String> capabilityFor(String type, Map<String, String> params) {
    return spec(type)
        .map(
            s -> {
              for (CommandParamSpec p : s.getParamsList()) {
                if (!p.getCapabilityWhenSet().isEmpty()
                    && params != null
                    && !params.getOrDefault(p.getName(), "").isEmpty()) {
                  return p.getCapabilityWhenSet();
                }
              }
              return s.getCapability();
            });
  }

  /** The capability a command type needs, if the type is known. */
  public static Optional<String> capabilityFor(String type) {
    return spec(type).map(CommandTypeSpec::getCapability);
  }
}
