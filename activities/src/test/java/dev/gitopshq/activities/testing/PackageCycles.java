package dev.gitopshq.activities.testing;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Source;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Package cycles that count what ArchUnit does not: a class named in a string. ArchUnit builds its
 * dependencies from the bytecode's type references (since 1.5 including {@code catch} clauses), but
 * a class named by its binary name in a string constant or an annotation value (MyBatis's {@code
 * typeHandler=dev.gitopshq....}, {@code Class.forName}) is a dependency it never sees. This reads
 * the constant pool of every analysed class, takes each name of an analysed class found in a
 * string, and looks for cycles between the top-level packages under a root over both kinds of
 * dependency together.
 */
public final class PackageCycles {
  private PackageCycles() {}

  /** One dependency between two classes, and how it was found. */
  public record Edge(String from, String to, String how) {}

  /**
   * The cycles between the top-level packages under {@code root} (for example {@code
   * dev.gitopshq.activities}), counting type references and classes named in strings; each cycle is
   * described by its packages and one example dependency per edge. Empty when there is none.
   */
  public static List<String> cycles(JavaClasses classes, String root) {
    Map<String, Map<String, Edge>> graph = new TreeMap<>();
    for (JavaClass c : classes) {
      Optional<String> from = slice(c.getName(), root);
      if (from.isEmpty()) {
        continue;
      }
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        String target = d.getTargetClass().getBaseComponentType().getName();
        add(graph, from.get(), target, root, new Edge(c.getName(), target, d.getDescription()));
      }
      for (String named : namedInStrings(c, root)) {
        if (classes.contain(named)) {
          add(
              graph,
              from.get(),
              named,
              root,
              new Edge(c.getName(), named, c.getName() + " names " + named + " in a string"));
        }
      }
    }
    List<String> out = new ArrayList<>();
    for (Set<String> component : stronglyConnected(graph)) {
      StringBuilder s = new StringBuilder("cycle between " + component + ":");
      for (String a : component) {
        for (Map.Entry<String, Edge> e : graph.getOrDefault(a, Map.of()).entrySet()) {
          if (component.contains(e.getKey())) {
            s.append("\n  ").append(a).append(" -> ").append(e.getKey()).append(": ");
            s.append(e.getValue().how());
          }
        }
      }
      out.add(s.toString());
    }
    return out;
  }

  /** The binary names under {@code root} that the class's constant pool holds as text. */
  public static Set<String> namedInStrings(JavaClass c, String root) {
    Pattern name =
        Pattern.compile(Pattern.quote(root) + "(\\.[a-z0-9_]+)*\\.[A-Z][A-Za-z0-9_]*(\\$\\w+)*");
    Set<String> out = new TreeSet<>();
    for (String text : utf8Constants(c)) {
      Matcher m = name.matcher(text);
      while (m.find()) {
        out.add(m.group());
      }
    }
    return out;
  }

  private static void add(
      Map<String, Map<String, Edge>> graph, String from, String target, String root, Edge edge) {
    slice(target, root)
        .filter(to -> !to.equals(from))
        .ifPresent(to -> graph.computeIfAbsent(from, k -> new TreeMap<>()).putIfAbsent(to, edge));
  }

  private static Optional<String> slice(String className, String root) {
    if (!className.startsWith(root + ".")) {
      return Optional.empty();
    }
    String rest = className.substring(root.length() + 1);
    int dot = rest.indexOf('.');
    return dot < 0 ? Optional.empty() : Optional.of(rest.substring(0, dot));
  }

  /** Tarjan's strongly connected components with more than one member. */
  private static List<Set<String>> stronglyConnected(Map<String, Map<String, Edge>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> out = new ArrayList<>();
    for (String v : graph.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, out);
      }
    }
    return out;
  }

  private static void connect(
      String v,
      Map<String, Map<String, Edge>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> out) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Map.of()).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, out);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        out.add(component);
      }
    }
  }

  /** The text entries (CONSTANT_Utf8) of the class file's constant pool. */
  static List<String> utf8Constants(JavaClass c) {
    Source source =
        c.getSource().orElseThrow(() -> new IllegalStateException("no class file: " + c));
    byte[] bytes;
    try (InputStream in = source.getUri().toURL().openStream()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> out = new ArrayList<>();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalStateException("not a class file: " + source.getUri());
      }
      in.readUnsignedShort(); // minor version
      in.readUnsignedShort(); // major version
      int count = in.readUnsignedShort();
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> out.add(in.readUTF());
          case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
          case 5, 6 -> {
            in.skipNBytes(8);
            i++; // a long or double takes two entries
          }
          case 7, 8, 16, 19, 20 -> in.skipNBytes(2);
          case 15 -> in.skipNBytes(3);
          default ->
              throw new IllegalStateException(
                  "constant pool tag " + tag + " unknown in " + source.getUri());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
