package dev.gitopshq.activities.generation;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The {@code rendered/} tree of a delivery: a generation's unit trees assembled into the edits of
 * one commit on main, and what changed against main unit by unit. Git only (no database, no
 * Temporal), so the delivery benchmark commits through the same code as the commit activity.
 */
public final class DeliveryTree {
  /** Where delivery output lives in the project's repository. */
  public static final String RENDERED = "rendered";

  private DeliveryTree() {}

  /**
   * What committing a generation's unit trees does to main: the edits (that make {@code rendered/}
   * hold exactly the unit trees), main's head they apply to, and the units whose files differ from
   * it.
   */
  public record Assembly(List<TreeEdit> edits, Optional<ObjectId> head, Changes changes) {}

  /**
   * Assembles the unit trees ({@code rendered/...} path to tree) into the edits of a delivery
   * commit and compares them with main's {@code rendered/}, file by file. A unit whose tree is the
   * very tree main holds at its path has the same files, so only the other units' files are read: a
   * generation that reused most trees compares the few units it rendered. Public for the delivery
   * benchmark, which commits through the same code without a database.
   */
  public static Assembly assemble(
      ProjectRepos repos, UUID org, UUID project, SortedMap<String, ObjectId> unitTrees) {
    Optional<ObjectId> head = repos.head(org, project, ProjectRepos.MAIN);
    ProjectRepos.TreeTop main =
        head.map(h -> repos.treeTop(org, project, h, RENDERED, DeliveryTree::isUnit))
            .orElseGet(() -> new ProjectRepos.TreeTop(new TreeMap<>(), new TreeMap<>()));
    // The edits that turn main's rendered/ into exactly the unit trees: every unit whose tree is
    // not already there, and deletes for what is there but not a unit any more. (Equivalent to
    // replacing rendered/ with all units, without reading the unchanged units' trees again.)
    List<TreeEdit> edits = new ArrayList<>();
    List<TreeEdit> puts = new ArrayList<>();
    // Files outside any unit directory are compared as they are (the generator writes none).
    SortedMap<String, ObjectId> before = new TreeMap<>(main.files());
    SortedMap<String, ObjectId> after = new TreeMap<>();
    main.files().keySet().forEach(f -> edits.add(TreeEdit.delete(RENDERED + "/" + f)));
    Set<String> seen = new TreeSet<>();
    for (Map.Entry<String, ObjectId> u : unitTrees.entrySet()) {
      String rel = u.getKey().substring(RENDERED.length() + 1);
      seen.add(rel);
      ObjectId was = main.leaves().get(rel);
      if (u.getValue().equals(was)) {
        continue; // The same tree: the same files.
      }
      puts.add(TreeEdit.tree(u.getKey(), u.getValue()));
      list(repos, org, project, rel, u.getValue(), after);
      if (was != null) {
        list(repos, org, project, rel, was, before);
      }
    }
    for (Map.Entry<String, ObjectId> gone : main.leaves().entrySet()) {
      if (!seen.contains(gone.getKey())) {
        edits.add(TreeEdit.delete(RENDERED + "/" + gone.getKey()));
        list(repos, org, project, gone.getKey(), gone.getValue(), before);
      }
    }
    edits.addAll(puts); // After the deletes, so no delete can undo a put.
    return new Assembly(edits, head, Changes.between(before, after));
  }

  /**
   * Whether a directory of {@code rendered/} is a unit: {@code env/cluster/tenant/service}, {@code
   * env/_bases/base}.
   */
  static boolean isUnit(String path) {
    String[] s = path.split("/");
    return s.length >= (s.length > 1 && s[1].equals("_bases") ? 3 : 4);
  }

  private static void list(
      ProjectRepos repos,
      UUID org,
      UUID project,
      String unit,
      ObjectId tree,
      SortedMap<String, ObjectId> into) {
    repos.listFiles(org, project, tree, "").forEach((f, blob) -> into.put(unit + "/" + f, blob));
  }

  /**
   * The unit directories whose files differ between two listings of {@code rendered/} (paths
   * relative to it): {@code env/cluster/tenant/service} or {@code env/_bases/base}.
   */
  public record Changes(SortedMap<String, String> units) {
    static Changes between(SortedMap<String, ObjectId> before, SortedMap<String, ObjectId> after) {
      SortedMap<String, String> units = new TreeMap<>();
      Set<String> beforeUnits = new TreeSet<>();
      Set<String> afterUnits = new TreeSet<>();
      before.keySet().forEach(p -> beforeUnits.add(unitOf(p)));
      after.keySet().forEach(p -> afterUnits.add(unitOf(p)));
      for (Map.Entry<String, ObjectId> e : after.entrySet()) {
        if (!e.getValue().equals(before.get(e.getKey()))) {
          String unit = unitOf(e.getKey());
          units.put(unit, beforeUnits.contains(unit) ? "changed" : "added");
        }
      }
      for (String p : before.keySet()) {
        if (!after.containsKey(p)) {
          String unit = unitOf(p);
          units.put(unit, afterUnits.contains(unit) ? "changed" : "removed");
        }
      }
      return new Changes(units);
    }

    static String unitOf(String path) {
      String[] s = path.split("/");
      int depth = s.length > 1 && s[1].equals("_bases") ? 3 : 4;
      return String.join("/", Arrays.copyOf(s, Math.min(depth, s.length - 1)));
    }

    public boolean isEmpty() {
      return units.isEmpty();
    }

    /** {environment, tenant} of every changed workload or binding (bases excluded). */
    List<String[]> tenantEnvironments() {
      Set<String> seen = new TreeSet<>();
      List<String[]> out = new ArrayList<>();
      for (String u : units.keySet()) {
        String[] s = u.split("/");
        if (s.length == 4 && seen.add(s[0] + "/" + s[2])) {
          out.add(new String[] {s[0], s[2]});
        }
      }
      return out;
    }

    Set<String> environments() {
      return part(0);
    }

    Set<String> tenants() {
      return part(2);
    }

    Set<String> services() {
      return part(3);
    }

    private Set<String> part(int i) {
      Set<String> out = new TreeSet<>();
      for (String u : units.keySet()) {
        String[] s = u.split("/");
        if (s.length == 4) {
          out.add(s[i]);
        }
      }
      return out;
    }

    public String summary(int total) {
      return units.size() + " of " + total + " units changed";
    }
  }
}
