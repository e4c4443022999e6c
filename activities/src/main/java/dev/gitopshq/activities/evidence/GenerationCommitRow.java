package dev.gitopshq.activities.evidence;

/**
 * The commits of one configuration revision of a project.
 *
 * @param configCommit the configuration commit the revision was generated from
 * @param renderedCommit the commit on main holding its rendered output, when it changed any
 */
public record GenerationCommitRow(
    long revision, String configCommit, String renderedCommit, String status) {}
