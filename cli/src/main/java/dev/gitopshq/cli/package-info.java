/**
 * The {@code gitopshq} command line (picocli): one command class per REST resource, all calling the
 * hub through {@link dev.gitopshq.cli.HubClient} with an {@link dev.gitopshq.cli.Endpoint}, and the
 * offline replay of recorded workflow histories ({@code audit replay}).
 */
package dev.gitopshq.cli;
